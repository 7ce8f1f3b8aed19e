import type { KV } from "@nats-io/kv";
import { Context, Effect, Layer, Option, ParseResult, Schema } from "effect";
import type { Unavailable } from "../contracts/ApiError.js";
import { mirrorBucket } from "../nats/mirrorBucket.js";
import { WATCH_CHECK_MS } from "../nats/WatchProgress.js";
import { ADDRESSES_FILTER, HOOKS_FILTER, hookKey, LISTS_PULL_BATCH } from "../webhooks/store/kvKeys.js";
import { getLive } from "../webhooks/store/kvOps.js";
import { packAddressList } from "../webhooks/store/packedAddressList.js";
import { decodeRecord, WebhookRecord } from "../webhooks/WebhookRecord.js";

/** A stored webhook with the length of its address list. */
export interface CatalogEntry {
  readonly record: WebhookRecord;
  readonly addressCount: number;
}

/**
 * Every team's webhooks, mirrored from the `webhooks` bucket by a watch, so the
 * operator list sorts and filters thousands of webhooks in memory instead of
 * reading each record on every call. Only address counts are kept, never lists.
 */
export class WebhookCatalog extends Context.Tag("app/admin/WebhookCatalog")<
  WebhookCatalog,
  {
    /** The mirrored webhooks, once the bucket's content at start is read (at once after that). */
    readonly all: Effect.Effect<ReadonlyArray<CatalogEntry>>;
    /** The team owning a webhook, read from the bucket now (not the mirror), or `undefined`. */
    readonly teamOf: (id: string) => Effect.Effect<string | undefined, Unavailable>;
  }
>() {}

const decode = Option.liftThrowable(decodeRecord);

/**
 * An address list as the number of its addresses: the catalog never keeps the lists themselves,
 * and counts them without a string per address (a list of 100,000 is 4.5 MB).
 */
const AddressCount = Schema.transformOrFail(Schema.String, Schema.NonNegativeInt, {
  strict: true,
  decode: (text, _, ast) => {
    const list = packAddressList(Buffer.from(text));
    return list === undefined
      ? ParseResult.fail(new ParseResult.Type(ast, text, "not an address list"))
      : ParseResult.succeed(list.count + list.others.length);
  },
  encode: (count, _, ast) => ParseResult.fail(new ParseResult.Forbidden(ast, count, "a count is not a list")),
});

/** How long a list call waits for the initial read before answering with what is mirrored. */
const READY_WAIT = "5 seconds";

export const layer = (kv: KV): Layer.Layer<WebhookCatalog> =>
  Layer.scoped(
    WebhookCatalog,
    Effect.gen(function* () {
      // A new watch replays each key's deletion marker too, so a stalled one is opened again exactly.
      const records = yield* mirrorBucket(kv, {
        key: HOOKS_FILTER,
        decode: Schema.parseJson(WebhookRecord),
        stallCheckMs: WATCH_CHECK_MS,
      });
      const counts = yield* mirrorBucket(kv, {
        key: ADDRESSES_FILTER,
        decode: AddressCount,
        stallCheckMs: WATCH_CHECK_MS,
        // Every list passes through here too: a few at a time, as the notifier reads them.
        pullBatch: LISTS_PULL_BATCH,
      });
      const ready = Effect.zipRight(records.ready, counts.ready).pipe(
        Effect.timeoutFail({
          duration: READY_WAIT,
          onTimeout: () => "the webhooks bucket was not read in time",
        }),
        Effect.catchAll((reason) =>
          Effect.logWarning(`webhook catalog: ${reason}; answering with what is read`),
        ),
      );
      const all = Effect.sync(() =>
        records.values().map((record) => ({ record, addressCount: counts.get(record.id) ?? 0 })),
      );
      return {
        all: Effect.zipRight(ready, all),
        teamOf: (id: string) =>
          Effect.map(getLive(kv, hookKey(id)), (entry) =>
            entry === null ? undefined : Option.getOrUndefined(decode(entry.string()))?.team_id,
          ),
      } as const;
    }),
  );
