import { Effect } from "effect";
import { Chains } from "../../../chains/Chains.js";
import { Discovery } from "../../../discovery/Discovery.js";
import { WebhookStore } from "../../../webhooks/WebhookStore.js";

/**
 * Queues the discovery of addresses a webhook started watching, on the chains it watches (all
 * when it names none), in the background (docs/real-chains.md): what they hold is then in this
 * worker's index before the first request about them. Never fails the request that added them.
 */
export const discoverWatched = (chainIds: ReadonlyArray<number> | null, addresses: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if (addresses.length === 0) return;
    const { chains } = yield* Chains;
    const watched = chainIds === null ? chains : chains.filter((chain) => chainIds.includes(chain.chain_id));
    (yield* Discovery).prefetch(watched, addresses);
  });

/** `discoverWatched` for a stored webhook: its chains are read from the store (all, if it cannot be read). */
export const discoverWatchedBy = (teamId: string, id: string, addresses: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if (addresses.length === 0) return;
    const chainIds = yield* (yield* WebhookStore).get(teamId, id).pipe(
      Effect.map((stored) => stored.value.chain_ids),
      Effect.orElseSucceed(() => null),
    );
    yield* discoverWatched(chainIds, addresses);
  });
