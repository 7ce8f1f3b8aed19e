import type { ChainConfig } from "../chains/ChainsConfig.js";
import { makePromiseSlots } from "../lib/promiseSlots.js";

/** Whoever queued a pair without naming itself: such a claim is never withdrawn. */
const ANYONE = "";

/** One wallet on one chain waiting to be discovered, and the webhooks that want it. */
export interface Pending {
  readonly chain: ChainConfig;
  readonly wallet: string;
  /** Ids of the webhooks that queued it (ANYONE for a caller that named none). */
  readonly claims: Set<string>;
}

export interface PrefetchQueueDeps {
  /**
   * Starts the wallet's discovery and settles once its sweep is done (or failed), answering whether
   * it asked the nodes anything: one found complete in its record (discovered before, then let go)
   * does not, and the line goes on without its pause.
   */
  readonly discover: (chain: ChainConfig, wallet: string) => Promise<boolean>;
  /**
   * Whether the wallet's discovery on the chain is already known or under way, for the webhook `by`
   * that asks (ANYONE: a caller that named none).
   */
  readonly known: (key: string, by: string) => boolean;
  readonly key: (chainId: number, wallet: string) => string;
  /** Most pairs waiting, over all chains; more are left to their first request. */
  readonly max: number;
  /** Most discoveries started per second on each chain (one runs at a time, over all chains). */
  readonly perSecond: number;
  /**
   * Settles once a discovery has held the turn long enough (TURN_MAX_MS by default): it goes on,
   * and the next line takes the turn, so one chain whose nodes hang does not stall every chain.
   */
  readonly turnOver?: () => Promise<void>;
}

/** Longest one background discovery holds the turn before the next line takes it. */
export const TURN_MAX_MS = 10_000;

const turnTimer = () => new Promise<void>((resolve) => setTimeout(resolve, TURN_MAX_MS).unref?.());

/**
 * Wallets a webhook started watching, discovered in the background one at a time, so they are
 * ready before anyone asks and never hold up a request's own sweep for more than one slot, and
 * paced, so a webhook of 10,000 addresses does not spend a rate-limited plan's requests. Each
 * chain has a line of its own, paced on its own as each has its own nodes and plan, and the lines
 * take turns: a large webhook on one chain does not hold back another chain's wallets. A webhook
 * that stops watching an address (deleted, or the address removed) withdraws its claim, and a
 * pair no webhook claims any more leaves the line.
 */
export const makePrefetchQueue = (deps: PrefetchQueueDeps) => {
  /** Each chain's waiting pairs by key, in the order they came. */
  const lines = new Map<number, Map<string, Pending>>();
  const draining = new Set<number>();
  /** One discovery at a time over all lines, taken in turn (each line asks again after its pause). */
  const turn = makePromiseSlots(1);
  let size = 0;
  /**
   * Pairs a request took out of their line (`drop`) whose discovery has not settled yet, by key:
   * a withdrawal meanwhile takes its claim off them too, so `restore` does not bring it back.
   */
  const dropped = new Map<string, Pending>();

  /** The chain's line, made if it has none. */
  const lineOf = (chainId: number): Map<string, Pending> => {
    let line = lines.get(chainId);
    if (line === undefined) {
      line = new Map();
      lines.set(chainId, line);
    }
    return line;
  };

  const leave = (chainId: number, line: Map<string, Pending>, key: string) => {
    line.delete(key);
    size--;
    if (line.size === 0) lines.delete(chainId);
  };

  const drain = async (chainId: number) => {
    if (draining.has(chainId)) return;
    draining.add(chainId);
    try {
      const spacingMs = 1_000 / deps.perSecond;
      for (;;) {
        const began = performance.now();
        let discovery: Promise<boolean> = Promise.resolve(false);
        // The line's first pair is taken once its turn comes: one withdrawn meanwhile is not.
        const ran = await turn(async () => {
          const line = lines.get(chainId);
          const next = line?.entries().next();
          if (line === undefined || next === undefined || next.done === true) return false;
          const [key, { chain, wallet }] = next.value;
          leave(chainId, line, key);
          discovery = deps.discover(chain, wallet).catch(() => true);
          await Promise.race([discovery, (deps.turnOver ?? turnTimer)()]);
          return true;
        });
        if (!ran) return;
        // A discovery that outlasted its turn still holds its own line: a chain whose nodes hang
        // has one discovery running at most, and the other chains go on.
        if (!(await discovery)) continue;
        const rest = spacingMs - (performance.now() - began);
        if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest).unref?.());
      }
    } finally {
      draining.delete(chainId);
      // A pair added after the line was last found empty, while this drain was still ending, has
      // no drain of its own: it found this one running.
      if (lines.has(chainId)) void drain(chainId);
    }
  };

  return {
    /**
     * Queues each wallet on each chain for the webhook `by` (none: a claim nobody withdraws) unless
     * known or over the bound; a pair already waiting takes the claim too. Answers how many pairs
     * joined a line.
     */
    add: (
      chains: ReadonlyArray<ChainConfig>,
      wallets: ReadonlyArray<string>,
      by: string = ANYONE,
    ): number => {
      let queued = 0;
      for (const chain of chains) {
        for (const address of wallets) {
          const wallet = address.toLowerCase();
          const key = deps.key(chain.chain_id, wallet);
          const waiting = lines.get(chain.chain_id)?.get(key);
          if (waiting !== undefined) {
            waiting.claims.add(by);
            continue;
          }
          // Past the bound only new pairs are left out: waiting ones still take this claim.
          if (deps.known(key, by) || size >= deps.max) continue;
          lineOf(chain.chain_id).set(key, { chain, wallet, claims: new Set([by]) });
          size++;
          queued++;
        }
        if (lines.has(chain.chain_id)) void drain(chain.chain_id);
      }
      return queued;
    },
    /**
     * Withdraws the webhook's claim on the wallets on the chains `chainIds` (every chain when not
     * given); answers how many pairs left their line.
     */
    withdraw: (by: string, wallets: ReadonlyArray<string>, chainIds?: ReadonlyArray<number>): number => {
      let left = 0;
      for (const [chainId, line] of lines) {
        if (chainIds !== undefined && !chainIds.includes(chainId)) continue;
        for (const address of wallets) {
          const key = deps.key(chainId, address.toLowerCase());
          const waiting = line.get(key);
          if (waiting === undefined || !waiting.claims.delete(by) || waiting.claims.size > 0) continue;
          leave(chainId, line, key);
          left++;
        }
      }
      if (dropped.size > 0) {
        const named = new Set(wallets.map((address) => address.toLowerCase()));
        for (const pending of dropped.values())
          if (
            named.has(pending.wallet) &&
            (chainIds === undefined || chainIds.includes(pending.chain.chain_id))
          )
            pending.claims.delete(by);
      }
      return left;
    },
    /**
     * Takes the pair out of its line: its discovery started another way (a request for the
     * wallet), so it is neither counted as waiting nor given a paced turn of its own. Answers the
     * pair taken out, for `restore`.
     */
    drop: (key: string): Pending | undefined => {
      for (const [chainId, line] of lines) {
        const pending = line.get(key);
        if (pending === undefined) continue;
        leave(chainId, line, key);
        dropped.set(key, pending);
        return pending;
      }
      return undefined;
    },
    /** The discovery a request started for a dropped pair succeeded: it is not restored. */
    settled: (pending: Pending): void => {
      const key = deps.key(pending.chain.chain_id, pending.wallet);
      if (dropped.get(key) === pending) dropped.delete(key);
    },
    /**
     * Puts a dropped pair back at the end of its line with the claims still on it (the discovery a
     * request started for it failed), past the bound if need be: it held its place before. One
     * waiting again meanwhile takes the claims; one no webhook claims any more is not restored.
     */
    restore: (pending: Pending): void => {
      const key = deps.key(pending.chain.chain_id, pending.wallet);
      if (dropped.get(key) !== pending) return;
      dropped.delete(key);
      if (pending.claims.size === 0) return;
      const line = lineOf(pending.chain.chain_id);
      const waiting = line.get(key);
      if (waiting !== undefined) {
        for (const claim of pending.claims) waiting.claims.add(claim);
        return;
      }
      line.set(key, pending);
      size++;
      void drain(pending.chain.chain_id);
    },
    size: (): number => size,
    /** Pairs waiting, by chain id. */
    byChain: (): ReadonlyMap<number, number> =>
      new Map([...lines].map(([chainId, line]) => [chainId, line.size])),
  };
};
