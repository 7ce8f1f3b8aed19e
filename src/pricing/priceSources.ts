import type { ChainConfig } from "../chains/ChainsConfig.js";
import type { IndexReader } from "../indexer/IndexReader.js";
import { hopsOf, otherToken, pricingCandidates } from "./planPricing.js";
import { NATIVE_CURRENCY } from "./poolReads.js";

/**
 * The pools whose swaps can move the USD prices pricing gives `tokens` (planPricing.ts,
 * selectPrices.ts): each token's candidate pools, and, for a token with a pool against a hop (or a
 * hop itself), that hop's pools against stablecoins, which set the hop's price. Stablecoins are
 * worth 1 by configuration: no pool moves them. A V4 pool is named by its pool id, which its
 * PoolManager's `Swap` and `ModifyLiquidity` logs carry as their first topic. The index decides
 * the candidates, so a pool it learns of later counts from the next call.
 */
export const priceSourcePools = async (
  index: IndexReader,
  chain: ChainConfig,
  tokens: ReadonlyArray<string>,
): Promise<ReadonlySet<string>> => {
  const stables = new Set(chain.stablecoins);
  const hops = new Set(hopsOf(chain));
  const asToken = (t: string) =>
    t === NATIVE_CURRENCY && chain.wrapped_native !== undefined ? chain.wrapped_native : t;
  const wanted = [...new Set(tokens.map(asToken))].filter((token) => !stables.has(token));
  const out = new Set<string>();
  if (wanted.length === 0) return out;
  const poolsOf = new Map(
    (await pricingCandidates(index, chain, wanted)).map((candidate) => [candidate.token, candidate.pools]),
  );
  const addHop = (hop: string) => {
    for (const pool of poolsOf.get(hop) ?? []) out.add(pool.pool);
  };
  for (const token of wanted) {
    if (hops.has(token)) {
      addHop(token);
      continue;
    }
    for (const pool of poolsOf.get(token) ?? []) {
      out.add(pool.pool);
      const other = otherToken(chain, pool, token);
      if (hops.has(other)) addHop(other);
    }
  }
  return out;
};
