import type { IndexedPool } from "../indexer/IndexRecords.js";
import { priceFromReserves, priceFromSqrtPriceX96, toUnits } from "./poolMath.js";
import { NATIVE_CURRENCY, type PoolSnapshot } from "./poolReads.js";

/**
 * A token's USD price and the pool that set it. A stablecoin is worth 1 by configuration; one
 * without any pool has no pool and a size of 0: nothing onchain backs it.
 */
export interface PriceQuote {
  readonly priceUsd: number;
  /** USD liquidity of the pool that set the price (see docs/pricing.md). */
  readonly poolSize: number;
  readonly pool: IndexedPool | undefined;
}

export interface PricingInputs {
  /** Tokens worth exactly 1 USD. */
  readonly stablecoins: ReadonlyArray<string>;
  /** Intermediate hops (wrapped native first, then configured quote tokens), priced against stablecoins. */
  readonly hops: ReadonlyArray<string>;
  /** The chain's wrapped native token; V4's native currency (the zero address) is priced as it. */
  readonly wrappedNative: string | undefined;
  readonly snapshots: ReadonlyArray<PoolSnapshot>;
  /** Decimals by token; pools with a token of unknown decimals are not used. */
  readonly decimals: ReadonlyMap<string, number>;
}

interface Side {
  readonly token: string;
  readonly other: string;
  /** Whole units of `other` per unit of `token`. */
  readonly price: number;
  /** Whole units of `other` backing the price. */
  readonly otherDepth: number;
  readonly pool: IndexedPool;
}

/** Both directions of each usable pool: price of one side in the other, and the depth of the other side. */
const sides = (inputs: PricingInputs): ReadonlyArray<Side> => {
  const asToken = (token: string) =>
    token === NATIVE_CURRENCY && inputs.wrappedNative !== undefined ? inputs.wrappedNative : token;
  const out: Array<Side> = [];
  for (const snapshot of inputs.snapshots) {
    const token0 = asToken(snapshot.pool.token0);
    const token1 = asToken(snapshot.pool.token1);
    const decimals0 = inputs.decimals.get(token0);
    const decimals1 = inputs.decimals.get(token1);
    if (decimals0 === undefined || decimals1 === undefined || token0 === token1) continue;
    const price0in1 =
      snapshot.sqrtPriceX96 === undefined
        ? priceFromReserves(snapshot.depth0, snapshot.depth1, decimals0, decimals1)
        : priceFromSqrtPriceX96(snapshot.sqrtPriceX96, decimals0, decimals1);
    if (price0in1 === undefined || !Number.isFinite(price0in1) || price0in1 <= 0) continue;
    const depth0 = toUnits(snapshot.depth0, decimals0);
    const depth1 = toUnits(snapshot.depth1, decimals1);
    out.push({ token: token0, other: token1, price: price0in1, otherDepth: depth1, pool: snapshot.pool });
    out.push({ token: token1, other: token0, price: 1 / price0in1, otherDepth: depth0, pool: snapshot.pool });
  }
  return out;
};

/**
 * USD prices by the most liquid route, in two levels: hops (wrapped native and
 * quote tokens) are priced from their deepest pool against a stablecoin; every
 * other token from its deepest pool against a stablecoin or a priced hop. A
 * pool's size is twice the USD value of the priced side's depth. Stablecoins
 * are worth 1 and carry the size of their deepest pool (0 when they have none).
 */
export const selectPrices = (inputs: PricingInputs): ReadonlyMap<string, PriceQuote> => {
  const all = sides(inputs);
  const stable = new Set(inputs.stablecoins);
  const usd = new Map<string, number>(inputs.stablecoins.map((s) => [s, 1]));
  const quotes = new Map<string, PriceQuote>();

  const best = (token: string, pricedBy: (other: string) => number | undefined): PriceQuote | undefined => {
    let chosen: PriceQuote | undefined;
    for (const side of all) {
      if (side.token !== token) continue;
      const otherUsd = pricedBy(side.other);
      if (otherUsd === undefined) continue;
      const poolSize = 2 * side.otherDepth * otherUsd;
      if (chosen === undefined || poolSize > chosen.poolSize) {
        chosen = { priceUsd: stable.has(token) ? 1 : side.price * otherUsd, poolSize, pool: side.pool };
      }
    }
    return chosen;
  };

  for (const hop of inputs.hops) {
    if (stable.has(hop)) continue;
    const quote = best(hop, (other) => (stable.has(other) ? 1 : undefined));
    if (quote !== undefined) {
      quotes.set(hop, quote);
      usd.set(hop, quote.priceUsd);
    }
  }
  const tokens = new Set(all.map((side) => side.token));
  for (const token of tokens) {
    if (quotes.has(token)) continue;
    const quote = best(token, (other) => (other === token ? undefined : usd.get(other)));
    if (quote !== undefined) quotes.set(token, quote);
  }
  for (const stablecoin of inputs.stablecoins) {
    if (!quotes.has(stablecoin)) quotes.set(stablecoin, { priceUsd: 1, poolSize: 0, pool: undefined });
  }
  return quotes;
};
