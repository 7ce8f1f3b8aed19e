import { Effect } from "effect";
import { WatchedWallets } from "../../../discovery/watchedWallets.js";
import { WebhookStore } from "../../../webhooks/WebhookStore.js";

/**
 * Queues the discovery of addresses a webhook started watching, on the chains it watches (all
 * when it names none), in the background, on every API worker (docs/real-chains.md): what they
 * hold is then in each worker's index before the first request about them. Never fails the
 * request that added them.
 */
export const discoverWatched = (
  id: string,
  chainIds: ReadonlyArray<number> | null,
  addresses: ReadonlyArray<string>,
) => Effect.flatMap(WatchedWallets, (watched) => watched.announce(chainIds, addresses, id));

/**
 * `discoverWatched` for a stored webhook, on the chains the store says it watches. A webhook gone
 * meanwhile (a concurrent delete) queues nothing: nobody would withdraw its claim. One whose record
 * cannot be read queues nothing either, and says so: its wallets are discovered on their first
 * request, rather than queued on chains it may not watch.
 */
export const discoverWatchedBy = (teamId: string, id: string, addresses: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if (addresses.length === 0) return;
    const stored = yield* Effect.either((yield* WebhookStore).get(teamId, id));
    if (stored._tag === "Left") {
      if (stored.left._tag !== "NotFound")
        yield* Effect.logWarning(
          `webhook ${id}: its chains could not be read (${stored.left.message}); its ${addresses.length} new addresses are discovered on their first request instead of in the background`,
        );
      return;
    }
    yield* discoverWatched(id, stored.right.value.chain_ids, addresses);
  });

/**
 * The webhook stopped watching `addresses` (deleted, or they were removed), or stopped watching the
 * chains `chainIds`: on every API worker, those still waiting to be discovered for it alone there
 * are not (docs/real-chains.md).
 */
export const forgetWatched = (
  id: string,
  addresses: ReadonlyArray<string>,
  chainIds?: ReadonlyArray<number>,
) => Effect.flatMap(WatchedWallets, (watched) => watched.withdraw(id, addresses, chainIds));

/**
 * The webhook's addresses, for withdrawing or moving their claims: none when it is gone, and none
 * with a warning naming `consequence` when they cannot be read (the change they follow goes on).
 */
export const watchedAddresses = (teamId: string, id: string, when: string, consequence: string) =>
  Effect.flatMap(WebhookStore, (store) =>
    store
      .addresses(teamId, id)
      .pipe(
        Effect.catchAll((error) =>
          Effect.as(
            error._tag === "NotFound"
              ? Effect.void
              : Effect.logWarning(
                  `webhook ${id}: its addresses could not be read ${when} (${error.message}); ${consequence}`,
                ),
            [] as ReadonlyArray<string>,
          ),
        ),
      ),
  );
