import { type ChainConfig, protocolsOf } from "../chains/ChainsConfig.js";
import type { RawCall, RawResult } from "../chains/multicall3.js";
import type { IndexReader } from "../indexer/IndexReader.js";
import type { IndexedPool } from "../indexer/IndexRecords.js";
import { depthLensCode } from "./lens/depthLensCode.js";
import {
  decodePool,
  NATIVE_CURRENCY,
  type PoolReadContext,
  type PoolSnapshot,
  poolCalls,
} from "./poolReads.js";
import { type PriceQuote, selectPrices } from "./selectPrices.js";

/**
 * The reads that price a set of tokens on one chain, to be sent in the same
 * multicall as other reads (balances), and the function that turns their
 * results into prices. Candidate pools come from the index: for every token, its
 * pools against a stablecoin or a hop; for hops, their pools against stablecoins.
 */
export interface PricingPlan {
  readonly calls: ReadonlyArray<RawCall>;
  readonly finish: (results: ReadonlyArray<RawResult>) => ReadonlyMap<string, PriceQuote>;
}

export const hopsOf = (chain: ChainConfig): ReadonlyArray<string> => [
  ...(chain.wrapped_native === undefined ? [] : [chain.wrapped_native]),
  ...chain.quote_tokens.filter((token) => token !== chain.wrapped_native),
];

/** The pool's token that is not `token`, the native currency read as the wrapped native. */
export const otherToken = (chain: ChainConfig, pool: IndexedPool, token: string): string => {
  const asToken = (t: string) =>
    t === NATIVE_CURRENCY && chain.wrapped_native !== undefined ? chain.wrapped_native : t;
  return asToken(pool.token0) === token ? asToken(pool.token1) : asToken(pool.token0);
};

/**
 * The pools that may price each token, as pricing reads them: for every hop, its pools against a
 * stablecoin; for every other token (of `tokens`, and the stablecoins, for their pool sizes), its
 * pools against a stablecoin or a hop. Hops come first, every token once.
 */
export const pricingCandidates = async (
  index: IndexReader,
  chain: ChainConfig,
  tokens: ReadonlyArray<string>,
): Promise<ReadonlyArray<{ readonly token: string; readonly pools: ReadonlyArray<IndexedPool> }>> => {
  const stables = new Set(chain.stablecoins);
  const hops = hopsOf(chain);
  const hopSet = new Set(hops);
  // Every candidate's pools are read at once (a first answer waits for this; one token after
  // another was 2 LevelDB reads each in turn), then taken in the same order as before.
  const candidates: Array<{ token: string; accepts: (other: string) => boolean }> = [
    ...hops.map((hop) => ({ token: hop, accepts: (o: string) => stables.has(o) })),
    ...[...new Set([...tokens, ...stables])]
      .filter((token) => !hopSet.has(token))
      .map((token) => ({ token, accepts: (o: string) => stables.has(o) || hopSet.has(o) })),
  ];
  const poolsOf = async (token: string) => [
    ...(await index.poolsForToken(chain.chain_id, token)),
    // V4 pools hold native ETH as the zero address.
    ...(token === chain.wrapped_native ? await index.poolsForToken(chain.chain_id, NATIVE_CURRENCY) : []),
  ];
  const found = await Promise.all(candidates.map(({ token }) => poolsOf(token)));
  return candidates.map(({ token, accepts }, i) => ({
    token,
    pools: found[i]!.filter((pool) => accepts(otherToken(chain, pool, token))),
  }));
};

export const planPricing = async (
  index: IndexReader,
  chain: ChainConfig,
  tokens: ReadonlyArray<string>,
): Promise<PricingPlan> => {
  const hops = hopsOf(chain);
  const asToken = (t: string) =>
    t === NATIVE_CURRENCY && chain.wrapped_native !== undefined ? chain.wrapped_native : t;
  const pools = new Map<string, IndexedPool>();
  for (const candidate of await pricingCandidates(index, chain, tokens))
    for (const pool of candidate.pools) pools.set(pool.pool, pool);

  const ordered = [...pools.values()];
  const context: PoolReadContext = {
    stateViews: new Map(protocolsOf(chain).map((f) => [f.address, f.state_view])),
    // Compiled once per checkout and kept in memory: only the first request ever waits for it.
    lensCode: ordered.some((pool) => pool.kind !== "v2") ? await depthLensCode() : "0x",
  };
  const perPool = ordered.map((pool) => poolCalls(pool, context));
  const decimalsOf = new Set(ordered.flatMap((pool) => [asToken(pool.token0), asToken(pool.token1)]));
  const tokenList = [...decimalsOf];
  const metadata = await index.tokenMetadata(chain.chain_id, tokenList);
  const decimals = new Map<string, number>();
  tokenList.forEach((token, i) => {
    const d = metadata[i]?.decimals;
    if (d !== undefined && d !== null) decimals.set(token, d);
  });

  return {
    calls: perPool.flat(),
    finish: (results) => {
      const snapshots: Array<PoolSnapshot> = [];
      let offset = 0;
      ordered.forEach((pool, i) => {
        const count = perPool[i]!.length;
        const snapshot = count === 0 ? undefined : decodePool(pool, results.slice(offset, offset + count));
        offset += count;
        if (snapshot !== undefined) snapshots.push(snapshot);
      });
      return selectPrices({
        stablecoins: chain.stablecoins,
        hops,
        wrappedNative: chain.wrapped_native,
        snapshots,
        decimals,
      });
    },
  };
};
