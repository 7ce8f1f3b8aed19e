import type { KV } from "@nats-io/kv";
import { Effect, Schema } from "effect";
import { followValues } from "../../nats/followValues.js";
import { IndexEntry } from "../store/addressIndex.js";
import { AddressTable } from "./AddressTable.js";

const IndexEntryJson = Schema.parseJson(IndexEntry);

/**
 * This node's memory of the `webhook_addresses` index (address -> webhook
 * ids), kept current by a watch on the bucket, so matching a block costs a map
 * lookup per address rather than a KV call. Tombstones (`member: false`) and
 * deletions remove the pair. Resolves once the bucket's current content is loaded.
 */
export const makeAddressBook = (
  index: KV,
  /**
   * How often the stream's leader is asked whether the watch missed an index change (it can stall
   * without ending when a nats-server is lost: a webhook's new addresses would then never match).
   * A new watch replays the whole stream, tombstones and deletions included, so the table ends
   * exact. Undefined: never.
   */
  watchCheckMs?: number,
) =>
  Effect.gen(function* () {
    // About 60 bytes an address and no object per address (AddressTable.ts): a watch list of
    // millions costs neither hundreds of MB nor garbage-collection time on every block.
    const table = new AddressTable();
    const options = {
      key: ">" as const,
      decode: IndexEntryJson,
      ...(watchCheckMs === undefined ? {} : { stallCheckMs: watchCheckMs }),
    };
    const ready = yield* followValues(index, options, (key, entry) => {
      const dot = key.indexOf(".");
      const address = key.slice(0, dot);
      const id = key.slice(dot + 1);
      if (entry?.value.member === true) table.add(address, id);
      else table.remove(address, id);
    });
    yield* ready;
    return {
      /** Webhook ids subscribed to `address`. */
      webhooksFor: (address: string): ReadonlyArray<string> => table.webhooksFor(address),
      /** How many addresses have at least one webhook. */
      watchedAddresses: (): number => table.size,
    } as const;
  });

export type AddressBook = Effect.Effect.Success<ReturnType<typeof makeAddressBook>>;
