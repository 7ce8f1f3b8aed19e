import { MARKETS } from "../marketSpecs.js";

/** The assets the cToken and Comet markets list. */
export type LendingSymbol = "WETH" | "USDC" | "WBTC" | "UNI";

const ratio = (purpose: string, base: string): number => {
  const market = MARKETS.find((m) => m.purpose === purpose);
  if (market === undefined) throw new Error(`no market with purpose ${purpose}`);
  // Price of the pool's non-`base` token in units of `base`.
  return market.tokenA === base ? market.amountA / market.amountB : market.amountB / market.amountA;
};

/**
 * USD price of an asset at the DEX pools' opening state (marketSpecs.ts): ETH from the deep WETH/USDC
 * pool, WBTC through its WETH pool, UNI from the deep V3 pool. Lending oracles start from these so a
 * market's oracle agrees with the price the service takes from the DEXes. Rounded to 4 decimals (the V3
 * UNI pool's 333.333333 WETH makes UNI 9.99999999).
 */
export const openingPriceUsd = (symbol: LendingSymbol): number => {
  const eth = ratio("weth_usdc_deep", "USDC");
  const price = {
    USDC: 1,
    WETH: eth,
    WBTC: ratio("weth_hop_only", "WETH") * eth,
    UNI: ratio("v3_deep", "WETH") * eth,
  }[symbol];
  return Math.round(price * 10_000) / 10_000;
};
