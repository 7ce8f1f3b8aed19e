import type { KV } from "@nats-io/kv";
import { Context, Effect, Layer, Schema } from "effect";
import { ChainStatus } from "../contracts/Admin.js";
import { mirrorBucket } from "../nats/mirrorBucket.js";
import { WATCH_CHECK_MS } from "../nats/WatchProgress.js";
import type { FollowerStatus } from "./FollowerStatus.js";

/** Every chain follower's latest status, mirrored from the `ingest_status` bucket. */
export class IngestStatusBook extends Context.Tag("app/ingest/IngestStatusBook")<
  IngestStatusBook,
  {
    readonly all: () => ReadonlyArray<FollowerStatus>;
    readonly get: (chainId: number) => FollowerStatus | undefined;
  }
>() {}

export const layer = (bucket: KV): Layer.Layer<IngestStatusBook> =>
  Layer.scoped(
    IngestStatusBook,
    Effect.gen(function* () {
      // Keys are chain ids; a value that is not a status (a newer or older writer) is left out.
      // Only ever written (a chain's key is never removed): a stalled watch is opened again exactly.
      const statuses = yield* mirrorBucket(bucket, {
        key: ">",
        decode: Schema.parseJson(ChainStatus),
        stallCheckMs: WATCH_CHECK_MS,
      });
      return {
        all: () => [...statuses.values()].sort((a, b) => a.chain_id - b.chain_id),
        get: (chainId: number) => statuses.get(String(chainId)),
      } as const;
    }),
  );
