import type { KV, KvEntry } from "@nats-io/kv";
import { Effect } from "effect";
import { followBucket } from "../../nats/followBucket.js";
import { ADDRESSES_FILTER, ADDRESSES_PREFIX, LISTS_PULL_BATCH } from "../store/kvKeys.js";
import { EMPTY_LIST, packAddressList } from "../store/packedAddressList.js";
import { WatchedLists } from "./WatchedLists.js";

/** One list entry of the `webhooks` bucket applied to `lists`; a warning when its value is no list. */
const applyEntry = (lists: WatchedLists, entry: KvEntry) => {
  const id = entry.key.slice(ADDRESSES_PREFIX.length);
  // Shown again by a new watch: not read again (a list of 100,000 takes milliseconds to read).
  if (lists.holds(id, entry.revision)) return;
  if (entry.operation !== "PUT") {
    lists.apply(id, entry.revision, undefined);
    return;
  }
  const list = packAddressList(entry.value);
  // What the store's readers do with such a value too: an empty list (listOf in addressLists.ts).
  lists.apply(id, entry.revision, list ?? EMPTY_LIST);
  if (list === undefined)
    return Effect.logWarning(
      `webhook ${id}'s address list at revision ${entry.revision} is not a list: none of its addresses is watched`,
    );
};

/**
 * This node's memory of which webhooks watch which addresses, so matching a block costs one table
 * lookup per address it involves rather than a KV call. It follows the webhooks' address lists
 * (`addresses.<id>` in the `webhooks` bucket): one message per webhook, however many addresses, so
 * 10M addresses over 100 webhooks load as 100 messages where one message per (address, webhook)
 * took 27-30 s for 1M. Each list is applied as the difference from the one held (WatchedLists.ts),
 * and the lists are read LISTS_PULL_BATCH at a time, so memory holds the table and the
 * packed lists, never the lists' text. A deleted list (the webhook deleted) ends the webhook's
 * matches. Resolves once the lists stored at the start are applied.
 */
export const makeAddressBook = (
  webhooks: KV,
  /**
   * How often the stream's leader is asked whether the watch missed a list change (it can stall
   * without ending when a nats-server is lost: a webhook's new addresses would then never match).
   * A new watch replays each list's last entry, deletions included, and each is applied as a
   * difference (one already held is skipped), so the book ends exact. Undefined: never.
   */
  watchCheckMs?: number,
) =>
  Effect.gen(function* () {
    const lists = new WatchedLists();
    const ready = yield* followBucket(
      webhooks,
      {
        key: ADDRESSES_FILTER,
        pullBatch: LISTS_PULL_BATCH,
        ...(watchCheckMs === undefined ? {} : { stallCheckMs: watchCheckMs }),
      },
      (entry) => applyEntry(lists, entry),
    );
    yield* ready;
    yield* Effect.logInfo(`address book: ${lists.size} watched addresses over ${lists.webhooks} lists`);
    return {
      /** Webhook ids subscribed to `address`. */
      webhooksFor: (address: string): ReadonlyArray<string> => lists.webhooksFor(address),
      /** How many addresses have at least one webhook. */
      watchedAddresses: (): number => lists.size,
      /** The ids of webhooks with an address list. */
      webhookIds: (): ReadonlyArray<string> => [...lists.webhookIds()],
      /** One webhook's addresses (a string each: for `positions` webhooks, evaluated whole). */
      addressesOf: (id: string): ReadonlyArray<string> => lists.addressesOf(id),
    } as const;
  });

export type AddressBook = Effect.Effect.Success<ReturnType<typeof makeAddressBook>>;
