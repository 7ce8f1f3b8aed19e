import type { Address } from "viem";
import { Q96 } from "../poolMath.js";

/**
 * A tick range from `tick + lowerOffset` to `tick + upperOffset`, widened outwards to multiples of
 * `spacing`. Offsets of 1,800 ticks and more keep a range on its side of the price through the seed's
 * small round-trip swaps (1,800 ticks is about 20 %).
 */
export const rangeAround = (
  tick: number,
  spacing: number,
  lowerOffset: number,
  upperOffset: number,
): { tickLower: number; tickUpper: number } => ({
  tickLower: Math.floor((tick + lowerOffset) / spacing) * spacing,
  tickUpper: Math.ceil((tick + upperOffset) / spacing) * spacing,
});

/** `weth` and `other` raw amounts in the pool's token order. */
export const inPoolOrder = (
  token0: Address,
  wethAddress: Address,
  weth: bigint,
  other: bigint,
): { amount0: bigint; amount1: bigint } =>
  token0.toLowerCase() === wethAddress.toLowerCase()
    ? { amount0: weth, amount1: other }
    : { amount0: other, amount1: weth };

/**
 * Liquidity a position over [tickLower, tickUpper] gets for at most `amount0` and `amount1` at
 * `sqrtPriceX96` (LiquidityAmounts.getLiquidityForAmounts in floating point, 1 % below the exact value, so the
 * amounts it pulls always fit under the given maxima). V4 mints take a liquidity, not amounts.
 */
export const liquidityForAmounts = (
  sqrtPriceX96: bigint,
  tickLower: number,
  tickUpper: number,
  amount0: bigint,
  amount1: bigint,
): bigint => {
  const price = Number(sqrtPriceX96) / Number(Q96);
  const lower = 1.0001 ** (tickLower / 2);
  const upper = 1.0001 ** (tickUpper / 2);
  // Token0 covers the range from `from` up to the upper bound; token1 from the lower bound up to `to`.
  const from0 = (from: number) => (Number(amount0) * from * upper) / (upper - from);
  const from1 = (to: number) => Number(amount1) / (to - lower);
  const liquidity =
    price <= lower ? from0(lower) : price >= upper ? from1(upper) : Math.min(from0(price), from1(price));
  return BigInt(Math.floor(liquidity * 0.99));
};
