import type { ChainConfig } from "../chains/ChainsConfig.js";

/** One wallet on one chain waiting to be discovered. */
interface Pending {
  readonly chain: ChainConfig;
  readonly wallet: string;
}

export interface PrefetchQueueDeps {
  /** Starts the wallet's discovery and settles once its sweep is done (or failed). */
  readonly discover: (chain: ChainConfig, wallet: string) => Promise<void>;
  /** Whether the wallet's discovery on the chain is already known or under way. */
  readonly known: (key: string) => boolean;
  readonly key: (chainId: number, wallet: string) => string;
  /** Most pairs waiting; more are left to their first request. */
  readonly max: number;
  /** Most discoveries started per second (one runs at a time). */
  readonly perSecond: number;
}

/**
 * Wallets a webhook started watching, discovered in the background one at a time, so they are
 * ready before anyone asks and never hold up a request's own sweep for more than one slot, and
 * paced, so a webhook of 10,000 addresses does not spend a rate-limited plan's requests.
 */
export const makePrefetchQueue = (deps: PrefetchQueueDeps) => {
  const waiting = new Map<string, Pending>();
  /** How many of `waiting` are on each chain, for operators (stats). */
  const perChain = new Map<number, number>();
  const count = (chainId: number, by: number) => {
    const next = (perChain.get(chainId) ?? 0) + by;
    if (next > 0) perChain.set(chainId, next);
    else perChain.delete(chainId);
  };
  let draining = false;

  const drain = async () => {
    if (draining) return;
    draining = true;
    try {
      const spacingMs = 1_000 / deps.perSecond;
      // A Map visits entries added while it is iterated: wallets queued meanwhile are taken too.
      for (const [key, { chain, wallet }] of waiting) {
        waiting.delete(key);
        count(chain.chain_id, -1);
        const began = performance.now();
        await deps.discover(chain, wallet).catch(() => undefined);
        const rest = spacingMs - (performance.now() - began);
        if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest).unref?.());
      }
    } finally {
      draining = false;
    }
  };

  return {
    /** Queues each wallet on each chain unless known, queued or over the bound; answers how many were queued. */
    add: (chains: ReadonlyArray<ChainConfig>, wallets: ReadonlyArray<string>): number => {
      let queued = 0;
      for (const chain of chains)
        for (const address of wallets) {
          const wallet = address.toLowerCase();
          const key = deps.key(chain.chain_id, wallet);
          if (deps.known(key) || waiting.has(key)) continue;
          if (waiting.size >= deps.max) break;
          waiting.set(key, { chain, wallet });
          count(chain.chain_id, 1);
          queued++;
        }
      if (queued > 0) void drain();
      return queued;
    },
    /**
     * Takes the pair out of the queue: its discovery started another way (a request for the
     * wallet), so it is neither counted as waiting nor given a paced turn of its own.
     */
    drop: (key: string): void => {
      const pending = waiting.get(key);
      if (pending === undefined) return;
      waiting.delete(key);
      count(pending.chain.chain_id, -1);
    },
    size: (): number => waiting.size,
    /** Pairs waiting, by chain id. */
    byChain: (): ReadonlyMap<number, number> => perChain,
  };
};
