import type { KV } from "@nats-io/kv";
import { Context, Effect, Layer } from "effect";
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
      const statuses = new Map<number, FollowerStatus>();
      const watch = yield* Effect.promise(() => bucket.watch({ key: ">" }));
      yield* Effect.addFinalizer(() => Effect.sync(() => watch.stop()));
      yield* Effect.forkScoped(
        Effect.promise(async () => {
          for await (const entry of watch) {
            if (entry.operation !== "PUT") continue;
            const status = entry.json<FollowerStatus>();
            statuses.set(status.chain_id, status);
          }
        }),
      );
      return {
        all: () => [...statuses.values()].sort((a, b) => a.chain_id - b.chain_id),
        get: (chainId: number) => statuses.get(chainId),
      } as const;
    }),
  );
