import type { ChainConfig } from "../../chains/ChainsConfig.js";
import type { Position } from "../../contracts/Positions.js";
import type { ChainBlock } from "../../domain/ChainBlock.js";
import { positionSources } from "./positionSources.js";
import { walletsNamed } from "./walletsNamed.js";

/** What the footprints need of the service. */
export interface FootprintDeps {
  /** Pools whose swaps move the prices pricing gives `tokens` (pricing/priceSources.ts). */
  readonly priceSources: (chain: ChainConfig, tokens: ReadonlyArray<string>) => Promise<ReadonlySet<string>>;
  /** A cToken's underlying (its entry does not show it), from the index. */
  readonly lendingAsset: (chainId: number, token: string) => Promise<string | undefined>;
  /**
   * Changes whenever discovery writes something for the wallet (WalletDiscovery `lastWrite`, which
   * other wallets let go do not move: a refresh here is a positions read over RPC). It returns to 0
   * once the wallet is let go, which `discoveryGeneration` tells.
   */
  readonly discoveryVersion?: (chainId: number, wallet: string) => number;
  /** WalletDiscovery `settledGeneration`: once it moves, a write may hide behind a version of 0. */
  readonly discoveryGeneration?: () => number;
}

/**
 * Wallets read per block whose footprint is missing or may be out of date, besides those the block
 * moves: after a start every watched wallet is read once, this many a block, so a restart over
 * 10,000 wallets spreads its reads over about 300 blocks instead of stalling one.
 */
export const REFRESH_PER_BLOCK = 32;

interface Footprint {
  readonly sources: ReadonlyArray<string>;
  /** The discovery version it was read at: discovery finding more of the wallet's history reads it again. */
  readonly version: number;
  /** The chain's epoch it was read in: a later epoch means blocks went unseen since. */
  readonly epoch: number;
}

interface ChainFootprints {
  readonly byWallet: Map<string, Footprint>;
  /** Source (contract, pool or V4 pool id) → wallets whose positions it moves. */
  readonly bySource: Map<string, Set<string>>;
  /** The last block seen, for continuity. */
  last: { readonly number: number; readonly hash: string } | undefined;
  /** Raised whenever blocks were not seen in order (another process planned them, or a reorg). */
  epoch: number;
  /** Discovery versions at the time wallets were found due, for their footprints once read. */
  readonly versions: Map<string, number>;
  /** Discovery's settled generation at this chain's last block here. */
  generation: number | undefined;
}

/**
 * Each watched wallet's footprint on each chain, in this process's memory: the contracts and
 * pricing pools whose logs can move its positions' USD values, from its last positions read
 * (positionSources.ts, priceSources.ts). A block then costs a lookup per log, not a read per
 * wallet: only the wallets it can have moved are read (`due`).
 *
 * A footprint is read again when the wallet is involved in a block (it may have opened or closed a
 * position), when discovery wrote more of its history, and, REFRESH_PER_BLOCK a block, when it is
 * missing (a wallet just watched, or a process just started) or blocks went unseen since it was
 * read (another API process planned them: it may have missed the wallet's new position). A move
 * meanwhile is not lost: baselines are shared (ValueBaselines.ts), and the wallet's next read
 * compares with them.
 */
export const positionFootprints = (deps: FootprintDeps, refreshPerBlock = REFRESH_PER_BLOCK) => {
  const chains = new Map<number, ChainFootprints>();
  const stateOf = (chainId: number): ChainFootprints => {
    let state = chains.get(chainId);
    if (state === undefined) {
      state = {
        byWallet: new Map(),
        bySource: new Map(),
        last: undefined,
        epoch: 0,
        versions: new Map(),
        generation: undefined,
      };
      chains.set(chainId, state);
    }
    return state;
  };
  const forget = (state: ChainFootprints, wallet: string) => {
    for (const source of state.byWallet.get(wallet)?.sources ?? []) {
      const wallets = state.bySource.get(source);
      wallets?.delete(wallet);
      if (wallets?.size === 0) state.bySource.delete(source);
    }
    state.byWallet.delete(wallet);
  };

  return {
    /**
     * The wallets of `wallets` to evaluate at `block`: those it involves, those whose footprint
     * one of its logs touches (its emitter, or a V4 pool id as first topic), and up to
     * refreshPerBlock whose footprint is missing or out of date. Wallets no longer watched are
     * forgotten.
     */
    due: (chain: ChainConfig, block: ChainBlock, wallets: ReadonlySet<string>): ReadonlyArray<string> => {
      const state = stateOf(chain.chain_id);
      const last = state.last;
      if (last !== undefined && block.parent_hash !== last.hash && block.hash !== last.hash) state.epoch += 1;
      state.last = { number: block.number, hash: block.hash };
      // Discovery let go of as many wallets as it keeps since this chain's last block here: a
      // wallet written and let go since it was last compared (the chain stood still, was planned
      // elsewhere, or the wallet waited past the refresh budget) reads as never written, so every
      // footprint is read again.
      const generation = deps.discoveryGeneration?.();
      if (state.generation !== undefined && generation !== state.generation) state.epoch += 1;
      state.generation = generation;
      for (const wallet of [...state.byWallet.keys()]) if (!wallets.has(wallet)) forget(state, wallet);

      const due = new Set(walletsNamed(block, wallets));
      const touch = (source: string | undefined) => {
        if (source === undefined) return;
        for (const wallet of state.bySource.get(source) ?? []) due.add(wallet);
      };
      for (const log of block.logs) {
        touch(log.address);
        touch(log.topics[1]);
      }
      const version = (wallet: string) => deps.discoveryVersion?.(chain.chain_id, wallet) ?? 0;
      let budget = refreshPerBlock;
      for (const wallet of wallets) {
        if (budget === 0) break;
        if (due.has(wallet)) continue;
        const held = state.byWallet.get(wallet);
        if (held === undefined || held.epoch < state.epoch || held.version !== version(wallet)) {
          due.add(wallet);
          budget -= 1;
        }
      }
      for (const wallet of due) state.versions.set(wallet, version(wallet));
      return [...due];
    },

    /** Forgets the footprint of `wallet`, whose read failed: it comes due again (refreshed). */
    forget: (chainId: number, wallet: string): void => forget(stateOf(chainId), wallet),

    /**
     * A block of the chain failed after `due`: nothing recorded at it can be trusted to continue
     * from, so every footprint is out of date and the next block does not continue this one.
     */
    interrupt: (chainId: number): void => {
      const state = stateOf(chainId);
      state.epoch += 1;
      state.last = undefined;
    },

    /** Keeps the footprint of `wallet` from its positions as just read. */
    record: async (chain: ChainConfig, wallet: string, positions: ReadonlyArray<Position>): Promise<void> => {
      const state = stateOf(chain.chain_id);
      const epoch = state.epoch;
      const version = state.versions.get(wallet) ?? deps.discoveryVersion?.(chain.chain_id, wallet) ?? 0;
      state.versions.delete(wallet);
      const found = await Promise.all(
        positions.map(async (position) =>
          positionSources(
            position,
            position.type === "LendingV2" || position.type === "LendingV2Fork"
              ? await deps.lendingAsset(chain.chain_id, position.token)
              : undefined,
          ),
        ),
      );
      const contracts = found.flatMap((f) => f.contracts);
      const pools = await deps.priceSources(
        chain,
        found.flatMap((f) => f.tokens),
      );
      const sources = [...new Set([...contracts, ...pools].map((s) => s.toLowerCase()))];
      forget(state, wallet);
      state.byWallet.set(wallet, { sources, version, epoch });
      for (const source of sources) {
        const wallets = state.bySource.get(source);
        if (wallets === undefined) state.bySource.set(source, new Set([wallet]));
        else wallets.add(wallet);
      }
    },
  };
};

export type PositionFootprints = ReturnType<typeof positionFootprints>;
