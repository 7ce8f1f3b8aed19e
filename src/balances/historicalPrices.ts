import type { ChainConfig } from "../chains/ChainsConfig.js";
import { aggregate3 } from "../chains/multicall3.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import type { IndexReader } from "../indexer/IndexReader.js";
import { approximateBytes } from "../lib/approximateBytes.js";
import { Lru } from "../lib/Lru.js";
import { planPricing } from "../pricing/planPricing.js";
import type { PriceQuote } from "../pricing/selectPrices.js";

/** Most (chain, block, token) prices kept, whatever their size. */
const MAX_ENTRIES = 100_000;

/**
 * Prices at past blocks, by the same method as current prices, from state at
 * that block. Cached per (chain, block, token), up to `maxBytes` (clients choose
 * the offsets, so the keys are theirs to multiply): a past block never changes,
 * so entries never go stale (reorgs happen only near the head, not hours back).
 */
export const makeHistoricalPrices = (
  index: IndexReader,
  client: (chainId: number) => ChainRpc | undefined,
  maxBytes: number,
) => {
  const cache = new Lru<string, PriceQuote | null>(MAX_ENTRIES, {
    maxBytes,
    sizeOf: (key, quote) => approximateBytes(key) + approximateBytes(quote),
  });

  /** The price of each token at `block`; tokens with no price map to null. */
  const at = async (
    chain: ChainConfig,
    block: number,
    tokens: ReadonlyArray<string>,
  ): Promise<ReadonlyMap<string, PriceQuote | null>> => {
    const key = (token: string) => `${chain.chain_id}|${block}|${token}`;
    const result = new Map<string, PriceQuote | null>();
    const missing: Array<string> = [];
    for (const token of tokens) {
      const hit = cache.get(key(token));
      if (hit === undefined) missing.push(token);
      else result.set(token, hit);
    }
    const rpc = client(chain.chain_id);
    if (missing.length > 0 && rpc !== undefined) {
      const plan = await planPricing(index, chain, missing);
      const prices = plan.finish(await aggregate3(rpc, plan.calls, { block: { number: block } }));
      for (const token of missing) {
        const quote = prices.get(token) ?? null;
        cache.set(key(token), quote);
        result.set(token, quote);
      }
    }
    return result;
  };

  /** The block at or before `hoursAgo` hours before `nowSeconds`, from the block-time index. */
  const blockHoursAgo = (chainId: number, nowSeconds: number, hoursAgo: number) =>
    index.blockAtOrBefore(chainId, nowSeconds - hoursAgo * 3600);

  return { at, blockHoursAgo, lookups: () => ({ hits: cache.hits, misses: cache.misses }) };
};

export type HistoricalPrices = ReturnType<typeof makeHistoricalPrices>;
