import type { TokenSymbol } from "./tokenSpecs.js";

/** Protocol names as the chains config and the service report them. */
export type Protocol = "UniswapV2" | "SushiSwapV2" | "UniswapV3" | "SushiSwapV3" | "UniswapV4";

/** One pool seeded on every chain, with its opening depth in whole tokens. */
export interface MarketSpec {
  readonly protocol: Protocol;
  readonly tokenA: TokenSymbol;
  readonly tokenB: TokenSymbol;
  readonly amountA: number;
  readonly amountB: number;
  /** Fee in hundredths of a bip (V3/V4); V2 pools are always 0.3 %. */
  readonly fee: number;
  /** Why the pool exists, written to the manifest so tests can pick pools by purpose. */
  readonly purpose: string;
}

/** V4 tick spacing for the devnet's single fee tier (3000 -> 60, as V3 uses). */
export const V4_TICK_SPACING = 60;

/**
 * The market design (ETH opens at 3,000 USD). Pricing should take WETH/USDC from the deep pools, price WBTC
 * only through WETH, prefer the deep V3 UNI pool (10 USD) over the thin V2 one (11 USD), report MKR with a
 * small pool size, treat SPAM's 60 USD pool as untrustworthy and leave NONAME unpriced.
 */
export const MARKETS: readonly MarketSpec[] = [
  {
    protocol: "UniswapV2",
    tokenA: "WETH",
    tokenB: "USDC",
    amountA: 1_000,
    amountB: 3_000_000,
    fee: 3000,
    purpose: "weth_usdc_deep",
  },
  {
    protocol: "UniswapV3",
    tokenA: "WETH",
    tokenB: "USDC",
    amountA: 1_000,
    amountB: 3_000_000,
    fee: 500,
    purpose: "weth_usdc_deep",
  },
  {
    protocol: "UniswapV4",
    tokenA: "WETH",
    tokenB: "USDC",
    amountA: 1_000,
    amountB: 3_000_000,
    fee: 3000,
    purpose: "weth_usdc_deep",
  },
  {
    protocol: "SushiSwapV2",
    tokenA: "WETH",
    tokenB: "USDC",
    amountA: 100,
    amountB: 300_000,
    fee: 3000,
    purpose: "fork_weth_usdc",
  },
  {
    protocol: "SushiSwapV3",
    tokenA: "WETH",
    tokenB: "USDT",
    amountA: 100,
    amountB: 300_000,
    fee: 3000,
    purpose: "fork_weth_usdt",
  },
  {
    protocol: "UniswapV3",
    tokenA: "WBTC",
    tokenB: "WETH",
    amountA: 20,
    amountB: 400,
    fee: 3000,
    purpose: "weth_hop_only",
  },
  {
    protocol: "UniswapV3",
    tokenA: "UNI",
    tokenB: "WETH",
    amountA: 100_000,
    amountB: 333.333333,
    fee: 3000,
    purpose: "v3_deep",
  },
  {
    protocol: "UniswapV2",
    tokenA: "UNI",
    tokenB: "WETH",
    amountA: 1_000,
    amountB: 3.666666,
    fee: 3000,
    purpose: "v2_thin_other_price",
  },
  {
    protocol: "UniswapV2",
    tokenA: "MKR",
    tokenB: "WETH",
    amountA: 1.25,
    amountB: 0.833333,
    fee: 3000,
    purpose: "low_liquidity",
  },
  {
    protocol: "UniswapV2",
    tokenA: "SPAM",
    tokenB: "WETH",
    amountA: 3_000_000,
    amountB: 0.01,
    fee: 3000,
    purpose: "spam",
  },
];
