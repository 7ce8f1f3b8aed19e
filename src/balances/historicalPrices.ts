import { type BlockTimeFinder, makeBlockTimeFinder } from "../chains/blockTimeFinder.js";
import type { ChainConfig } from "../chains/ChainsConfig.js";
import { aggregate3 } from "../chains/multicall3.js";
import { nodeHeaders } from "../chains/nodeHeaders.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import type { IndexReader } from "../indexer/IndexReader.js";
import { approximateBytes } from "../lib/approximateBytes.js";
import { Lru } from "../lib/Lru.js";
import { planPricing } from "../pricing/planPricing.js";
import type { PoolLookup } from "../pricing/poolLookup.js";
import type { PriceQuote } from "../pricing/selectPrices.js";

/** Most (chain, block, token) prices kept, whatever their size. */
const MAX_ENTRIES = 100_000;

/**
 * The block of a past time: its number, or why there is none to read prices at (said in the
 * answer's warning). Undefined when the index has no block that old and no node can be asked.
 */
export type PastBlock = number | { readonly missing: string } | undefined;

const dateOf = (seconds: number) => new Date(seconds * 1000).toISOString();

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
  /** Finds past blocks the index does not hold (its own cache of node headers, with its lookups). */
  blocks: BlockTimeFinder = makeBlockTimeFinder(),
  /** Finds pools the index lacks by asking the factories at the past block. */
  pools?: PoolLookup,
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
      await pools?.ensurePools(chain, missing, { number: block });
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

  /**
   * The last block at or before `hoursAgo` hours before `nowSeconds`. From the block-time index
   * when it holds that block and the one after it (then the answer is exact, and costs no call);
   * otherwise (before the index starts, or past its last block) from the chain's node headers.
   */
  const blockHoursAgo = async (
    chain: ChainConfig,
    nowSeconds: number,
    hoursAgo: number,
  ): Promise<PastBlock> => {
    const seconds = nowSeconds - hoursAgo * 3600;
    const indexed = await index.blockAtOrBefore(chain.chain_id, seconds);
    // A block whose successor is indexed too is the last at or before the time, whatever the gaps
    // elsewhere in the index (history skipped where the nodes had pruned it).
    if (indexed !== undefined && (await index.blockTime(chain.chain_id, indexed + 1)) !== undefined)
      return indexed;
    const rpc = client(chain.chain_id);
    if (rpc === undefined) return indexed;
    const found = await blocks.find(chain.chain_id, nodeHeaders(rpc), seconds, chain.finality_depth);
    switch (found.kind) {
      case "block":
        return found.number;
      case "beforeGenesis":
        return {
          missing: `the chain has no block that old (its first block is from ${dateOf(found.genesisTimestamp)})`,
        };
      case "unserved":
        return {
          missing: `its RPC nodes serve no block header at or below block ${found.block}, where that time falls`,
        };
    }
  };

  return { at, blockHoursAgo, lookups: () => ({ hits: cache.hits, misses: cache.misses }) };
};

export type HistoricalPrices = ReturnType<typeof makeHistoricalPrices>;
