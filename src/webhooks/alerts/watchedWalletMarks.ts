import { Duration, Effect } from "effect";
import type { ChainConfig } from "../../chains/ChainsConfig.js";
import type { IndexedWallets } from "../../indexer/IndexedWallets.js";
import type { PositionWatcher } from "./positionAlerts.js";

/**
 * How often the wallets of `positions` webhooks are marked from the address book: a list change
 * (or a webhook made active) reaches the index's records within this.
 */
export const WATCHED_MARKS_EVERY_MS = 5_000;

export interface WatchedWalletMarksDeps {
  readonly chains: ReadonlyArray<ChainConfig>;
  /** The active `positions` webhooks following a chain, with their wallets (positionWatchers.ts). */
  readonly watchers: (chainId: number) => ReadonlyArray<PositionWatcher>;
  readonly wallets: Pick<IndexedWallets, "add" | "recordedWallets">;
  readonly everyMs?: number;
}

/**
 * The address lists whose wallets are marked, per chain: the address book hands out one array per
 * list as stored (WatchedLists.addressesOf), so a list unchanged since its marks is skipped by
 * identity: once marked, a pass costs a lookup per list, however many addresses it holds.
 */
export type MarkedLists = Map<number, WeakSet<ReadonlyArray<string>>>;

/** One pass: every `positions` webhook's wallets marked on each chain indexed for discovered wallets only. */
export const markWatchedWallets = (deps: WatchedWalletMarksDeps, marked: MarkedLists = new Map()) =>
  Effect.forEach(
    deps.chains.filter((chain) => deps.wallets.recordedWallets(chain.chain_id) !== undefined),
    (chain) => {
      let done = marked.get(chain.chain_id);
      if (done === undefined) {
        done = new WeakSet();
        marked.set(chain.chain_id, done);
      }
      const lists = deps.watchers(chain.chain_id).map((watcher) => watcher.wallets);
      const fresh = lists.filter((list) => !done.has(list));
      if (fresh.length === 0) return Effect.void;
      const wallets = new Set<string>();
      for (const list of fresh) for (const wallet of list) wallets.add(wallet.toLowerCase());
      return Effect.tryPromise(() => deps.wallets.add(chain, [...wallets])).pipe(
        Effect.tap(() => {
          for (const list of fresh) done.add(list);
        }),
        // Not stored: the next pass marks them again.
        Effect.catchAll((error) =>
          Effect.logWarning(
            `could not record the watched wallets of ${chain.name} (${chain.chain_id}) in the index: ${String(error.cause)}; trying again in ${(deps.everyMs ?? WATCHED_MARKS_EVERY_MS) / 1000} s`,
          ),
        ),
      );
    },
    { discard: true },
  );

/**
 * Keeps the wallets `positions` webhooks watch recorded in this worker's index on chains indexed
 * for discovered wallets only (IndexedWallets.ts): their position and value alerts find a wallet's
 * positions through the tokens the index says it touched. A webhook's announcement marks its wallets
 * on the workers running then; a worker that was not (one that joined with an empty DATA_DIR or from
 * an older snapshot, one that was down, an index switched from `all`) would never record them, and
 * a position opened after it joined would never alert. So the address book, which every worker
 * loads whole, is the source: marked at once (`marked` carried from that pass), then every
 * `everyMs` the lists that changed.
 */
export const runWatchedWalletMarks = (deps: WatchedWalletMarksDeps, marked: MarkedLists = new Map()) =>
  markWatchedWallets(deps, marked).pipe(
    Effect.zipRight(Effect.sleep(Duration.millis(deps.everyMs ?? WATCHED_MARKS_EVERY_MS))),
    Effect.forever,
  );
