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

/** `discoverWatched` for a stored webhook: its chains are read from the store (all, if it cannot be read). */
export const discoverWatchedBy = (teamId: string, id: string, addresses: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if (addresses.length === 0) return;
    const chainIds = yield* (yield* WebhookStore).get(teamId, id).pipe(
      Effect.map((stored) => stored.value.chain_ids),
      Effect.orElseSucceed(() => null),
    );
    yield* discoverWatched(id, chainIds, addresses);
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
