import type { ChainConfig } from "../chains/ChainsConfig.js";
import { LOW_LIQUIDITY_USD } from "../pricing/liquidityThresholds.js";
import { toUnits } from "../pricing/poolMath.js";
import type { Holding } from "./ChainHoldings.js";

export { SPAM_LIQUIDITY_USD } from "../pricing/liquidityThresholds.js";

/** A balance entry of spec 2.2 before optional fields (historical prices, metadata) are added. */
export interface BalanceEntry {
  readonly chain: string;
  readonly chain_id: number;
  readonly address: string;
  readonly amount: string;
  readonly symbol?: string;
  readonly name?: string;
  readonly decimals?: number;
  readonly price_usd?: number;
  readonly value_usd?: number;
  readonly pool_size?: number;
  readonly low_liquidity?: boolean;
}

/**
 * Shapes a holding as the original API did: amounts as decimal strings, price
 * fields only when there is a price (never a made-up 0), and for the native
 * asset no name, pool size or liquidity flag.
 */
export const toBalanceEntry = (chain: ChainConfig, holding: Holding): BalanceEntry => {
  const isNative = holding.address === "native";
  const price = holding.decimals === null ? undefined : holding.price;
  return {
    chain: chain.name,
    chain_id: chain.chain_id,
    address: holding.address,
    amount: holding.amount.toString(),
    ...(holding.symbol === null ? {} : { symbol: holding.symbol }),
    ...(isNative || holding.name === null ? {} : { name: holding.name }),
    ...(holding.decimals === null ? {} : { decimals: holding.decimals }),
    ...(price === undefined
      ? {}
      : {
          price_usd: price.priceUsd,
          value_usd: toUnits(holding.amount, holding.decimals!) * price.priceUsd,
          ...(isNative
            ? {}
            : { pool_size: price.poolSize, low_liquidity: price.poolSize < LOW_LIQUIDITY_USD }),
        }),
  };
};

/**
 * Response order: value_usd descending (entries without a value last), then
 * chain id, then address. A total order, so pages are stable.
 */
export const compareEntries = (a: BalanceEntry, b: BalanceEntry): number => {
  const va = a.value_usd ?? -1;
  const vb = b.value_usd ?? -1;
  if (va !== vb) return vb - va;
  if (a.chain_id !== b.chain_id) return a.chain_id - b.chain_id;
  return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
};
