import { type KV, KvWatchInclude } from "@nats-io/kv";
import { Effect, Option, Schema } from "effect";
import { IndexEntry } from "../store/addressIndex.js";

const decodeEntry = Schema.decodeUnknownOption(Schema.parseJson(IndexEntry));
const EMPTY: ReadonlySet<string> = new Set();

/**
 * This node's memory of the `webhook_addresses` index (address -> webhook
 * ids), kept current by a watch on the bucket, so matching a block costs a map
 * lookup per address rather than a KV call. Tombstones (`member: false`) and
 * deletions remove the pair. Resolves once the bucket's current content is loaded.
 */
export const makeAddressBook = (index: KV) =>
  Effect.gen(function* () {
    const byAddress = new Map<string, Set<string>>();
    const apply = (key: string, operation: string, text: () => string) => {
      const dot = key.indexOf(".");
      const address = key.slice(0, dot);
      const id = key.slice(dot + 1);
      const entry = operation === "PUT" ? decodeEntry(text()) : Option.none();
      const member = Option.isSome(entry) && entry.value.member;
      const set = byAddress.get(address);
      if (member) {
        if (set === undefined) byAddress.set(address, new Set([id]));
        else set.add(id);
      } else if (set !== undefined) {
        set.delete(id);
        if (set.size === 0) byAddress.delete(address);
      }
    };
    const pending = (yield* Effect.promise(() => index.status())).values;
    let loaded!: () => void;
    const ready = new Promise<void>((resolve) => {
      loaded = resolve;
    });
    if (pending === 0) loaded();
    const watch = yield* Effect.promise(() => index.watch({ key: ">", include: KvWatchInclude.LastValue }));
    yield* Effect.addFinalizer(() => Effect.sync(() => watch.stop()));
    yield* Effect.forkScoped(
      Effect.promise(async () => {
        for await (const entry of watch) {
          apply(entry.key, entry.operation, () => entry.string());
          if (entry.delta === 0) loaded();
        }
      }),
    );
    // A bucket whose last entries are all deletions may never report delta 0: do not wait forever.
    yield* Effect.promise(() => Promise.race([ready, new Promise((r) => setTimeout(r, 10_000))]));
    return {
      /** Webhook ids subscribed to `address` (lower case). */
      webhooksFor: (address: string): ReadonlySet<string> => byAddress.get(address) ?? EMPTY,
    } as const;
  });

export type AddressBook = Effect.Effect.Success<ReturnType<typeof makeAddressBook>>;
