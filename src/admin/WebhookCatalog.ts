import type { KV } from "@nats-io/kv";
import { Context, Deferred, Effect, Layer, Option, Schema } from "effect";
import type { Unavailable } from "../contracts/ApiError.js";
import { HOOK_PREFIX, hookKey } from "../webhooks/store/kvKeys.js";
import { getLive } from "../webhooks/store/kvOps.js";
import { decodeRecord, type WebhookRecord } from "../webhooks/WebhookRecord.js";

const ADDRESSES_PREFIX = "addresses.";

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
    /** The mirrored webhooks; waits (up to 5 s) for the initial read after start. */
    readonly all: Effect.Effect<ReadonlyArray<CatalogEntry>>;
    /** The team owning a webhook, read from the bucket now (not the mirror), or `undefined`. */
    readonly teamOf: (id: string) => Effect.Effect<string | undefined, Unavailable>;
  }
>() {}

const decode = Option.liftThrowable(decodeRecord);
const decodeList = Schema.decodeUnknownOption(
  Schema.parseJson(Schema.Struct({ addresses: Schema.Array(Schema.String) })),
);
const countOf = (text: string) =>
  Option.match(decodeList(text), { onNone: () => 0, onSome: (list) => list.addresses.length });

export const layer = (kv: KV): Layer.Layer<WebhookCatalog> =>
  Layer.scoped(
    WebhookCatalog,
    Effect.gen(function* () {
      const records = new Map<string, WebhookRecord>();
      const counts = new Map<string, number>();
      const ready = yield* Deferred.make<void>();
      const status = yield* Effect.promise(() => kv.status());
      if (status.values === 0) yield* Deferred.succeed(ready, undefined);
      const watch = yield* Effect.promise(() => kv.watch({ key: ">" }));
      yield* Effect.addFinalizer(() => Effect.sync(() => watch.stop()));
      const apply = (key: string, live: boolean, text: () => string) => {
        if (key.startsWith(HOOK_PREFIX)) {
          const id = key.slice(HOOK_PREFIX.length);
          const record = live ? decode(text()) : Option.none();
          if (Option.isSome(record)) records.set(id, record.value);
          else records.delete(id);
        } else if (key.startsWith(ADDRESSES_PREFIX)) {
          counts.set(key.slice(ADDRESSES_PREFIX.length), live ? countOf(text()) : 0);
        }
      };
      yield* Effect.forkScoped(
        Effect.promise(async () => {
          for await (const entry of watch) {
            apply(entry.key, entry.operation === "PUT", () => entry.string());
            if (!entry.isUpdate && entry.delta === 0) Effect.runSync(Deferred.succeed(ready, undefined));
          }
        }),
      );
      const all = Effect.sync(() =>
        [...records.values()].map((record) => ({ record, addressCount: counts.get(record.id) ?? 0 })),
      );
      return {
        all: Deferred.await(ready).pipe(Effect.timeout("5 seconds"), Effect.ignore, Effect.zipRight(all)),
        teamOf: (id: string) =>
          Effect.map(getLive(kv, hookKey(id)), (entry) =>
            entry === null ? undefined : Option.getOrUndefined(decode(entry.string()))?.team_id,
          ),
      } as const;
    }),
  );
