import type { KV } from "@nats-io/kv";
import { Effect, Schema } from "effect";
import { followBucket } from "../../nats/followBucket.js";
import { IndexEntry } from "../store/addressIndex.js";

const IndexEntryJson = Schema.parseJson(IndexEntry);
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
    const ready = yield* followBucket(index, { key: ">", decode: IndexEntryJson }, (key, entry) => {
      const dot = key.indexOf(".");
      const address = key.slice(0, dot);
      const id = key.slice(dot + 1);
      const set = byAddress.get(address);
      if (entry?.value.member === true) {
        if (set === undefined) byAddress.set(address, new Set([id]));
        else set.add(id);
      } else if (set !== undefined) {
        set.delete(id);
        if (set.size === 0) byAddress.delete(address);
      }
    });
    yield* ready;
    return {
      /** Webhook ids subscribed to `address` (lower case). */
      webhooksFor: (address: string): ReadonlySet<string> => byAddress.get(address) ?? EMPTY,
    } as const;
  });

export type AddressBook = Effect.Effect.Success<ReturnType<typeof makeAddressBook>>;
