import { type ChainConfig, protocolsOf } from "../chains/ChainsConfig.js";
import { addressWord, rawCall, uintWord } from "../chains/rawCalls.js";
import type { LendingToken, YieldSplitToken } from "./IndexRecords.js";
import { type ReadCalls, readYieldSplitMarkets } from "./readYieldSplitMarkets.js";

const ZERO = "0x0000000000000000000000000000000000000000";

/**
 * What the indexer asks the chain about a registry item a live event names but the index has not met.
 * On a chain the index did not read from its start, a cToken market or a Pendle PT may have been
 * created before the index's first block, and the registry backfill (which reads those creations from
 * the factories' logs) may not have reached it yet, or never will on a node that keeps no old logs.
 * A borrow from that market, or a new market of that PT, would then be dropped for good; instead the
 * chain is asked whether the item belongs to the registry, and if it does, it is recorded with the event.
 */
export interface LateRegistryReads {
  /** The lending-token records of those cTokens a registry comptroller lists (`markets(cToken).isListed`). */
  readonly listedCTokens: (cTokens: ReadonlyArray<string>) => Promise<ReadonlyMap<string, LendingToken>>;
  /** The PT, YT, market and `ym!` writes of those markets a registry market factory made (readYieldSplitMarkets). */
  readonly yieldSplitMarkets: (
    markets: ReadonlyArray<string>,
  ) => Promise<ReadonlyArray<readonly [string, YieldSplitToken | string]>>;
}

/** For planners that never meet a late item (the registry backfill reads creations in order). */
export const NO_LATE_REGISTRY_READS: LateRegistryReads = {
  listedCTokens: async () => new Map(),
  yieldSplitMarkets: async () => [],
};

/**
 * Each cToken's `underlying()` (reverts for a native-currency market) and, for every registry
 * comptroller, `markets(cToken)`, whose first word is `isListed` (Compound and its forks alike):
 * one round trip.
 */
const listedCTokens = async (
  read: ReadCalls,
  chain: ChainConfig,
  cTokens: ReadonlyArray<string>,
): Promise<ReadonlyMap<string, LendingToken>> => {
  const comptrollers = protocolsOf(chain).filter((p) => p.kind === "ctoken");
  const unique = [...new Set(cTokens)];
  const out = new Map<string, LendingToken>();
  if (comptrollers.length === 0 || unique.length === 0) return out;
  const perToken = 1 + comptrollers.length;
  const results = await read(
    unique.flatMap((cToken) => [
      rawCall(cToken, "underlying()"),
      ...comptrollers.map((c) => rawCall(c.address, "markets(address)", cToken)),
    ]),
  );
  unique.forEach((cToken, i) => {
    const at = i * perToken;
    const listedBy = comptrollers.find((_, c) => uintWord(results[at + 1 + c], 0) === 1n);
    if (listedBy === undefined) return;
    out.set(cToken, {
      kind: "ctoken",
      market: listedBy.address,
      side: "supply",
      asset: addressWord(results[at], 0) ?? ZERO,
    });
  });
  return out;
};

/** How long a contract no registry comptroller lists is not asked about again. */
const NOT_LISTED_TTL_MS = 60 * 60_000;
/** Contracts remembered as not listed, at most (the oldest are forgotten first). */
const NOT_LISTED_MAX = 10_000;

/**
 * The late-item reads of one chain, through `read` (the indexer's RPC, at the node's head). Compound
 * forks outside the registry emit the same `Borrow` event, on mainnet in many blocks: a contract found
 * not listed is remembered for an hour, so their borrows cost no call per block. A listed one is
 * written to the index with the event and never asked about again.
 */
export const chainLateRegistryReads = (
  read: ReadCalls,
  chain: ChainConfig,
  now: () => number = Date.now,
): LateRegistryReads => {
  const notListed = new Map<string, number>();
  return {
    listedCTokens: async (cTokens) => {
      const at = now();
      const ask = [...new Set(cTokens)].filter((cToken) => (notListed.get(cToken) ?? 0) <= at);
      const listed =
        ask.length === 0 ? new Map<string, LendingToken>() : await listedCTokens(read, chain, ask);
      for (const cToken of ask) {
        if (listed.has(cToken)) continue;
        notListed.delete(cToken);
        notListed.set(cToken, at + NOT_LISTED_TTL_MS);
        if (notListed.size > NOT_LISTED_MAX) notListed.delete(notListed.keys().next().value!);
      }
      return listed;
    },
    yieldSplitMarkets: (markets) => readYieldSplitMarkets(read, chain, markets),
  };
};
