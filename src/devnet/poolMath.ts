import { type Address, encodeAbiParameters, type Hex, keccak256 } from "viem";

/** 2^96, the fixed-point scale of Uniswap's sqrt prices. */
export const Q96 = 1n << 96n;

/** Bounds of `sqrtPriceX96` (TickMath.MIN_SQRT_PRICE / MAX_SQRT_PRICE); swap limits sit just inside them. */
export const MIN_SQRT_PRICE = 4295128739n;
export const MAX_SQRT_PRICE = 1461446703485210103287273052203988822378723970342n;

/** The widest tick range usable at a tick spacing (MIN_TICK/MAX_TICK rounded inwards). */
export const fullRangeTicks = (tickSpacing: number): { tickLower: number; tickUpper: number } => {
  const max = Math.floor(887272 / tickSpacing) * tickSpacing;
  return { tickLower: -max, tickUpper: max };
};

/** Integer square root (floor), by Newton's method: exact for the 2^192-scaled values sqrt prices need. */
export const sqrtBigInt = (value: bigint): bigint => {
  if (value < 2n) return value;
  let x = value;
  let y = (x + 1n) / 2n;
  while (y < x) {
    x = y;
    y = (x + value / x) / 2n;
  }
  return x;
};

/** Tokens in pool order: the lower address is token0, as every Uniswap version requires. */
export const sortPair = <T extends { readonly address: Address }>(a: T, b: T): readonly [T, T] =>
  BigInt(a.address) < BigInt(b.address) ? [a, b] : [b, a];

/** `sqrtPriceX96` at which a pool holds raw `amount0` of token0 against raw `amount1` of token1. */
export const sqrtPriceX96FromAmounts = (amount0: bigint, amount1: bigint): bigint =>
  sqrtBigInt((amount1 << 192n) / amount0);

/**
 * Liquidity a full-range position gets for at most `amount0` and `amount1` at `sqrtPriceX96`. It ignores
 * the finite range ends, which only lowers the amounts actually pulled, so the amounts are safe maxima.
 */
export const fullRangeLiquidity = (sqrtPriceX96: bigint, amount0: bigint, amount1: bigint): bigint => {
  const fromToken0 = (amount0 * sqrtPriceX96) / Q96;
  const fromToken1 = (amount1 * Q96) / sqrtPriceX96;
  return ((fromToken0 < fromToken1 ? fromToken0 : fromToken1) * 999n) / 1000n;
};

/** A Uniswap V4 pool key (no hooks in the devnet). */
export interface PoolKey {
  readonly currency0: Address;
  readonly currency1: Address;
  readonly fee: number;
  readonly tickSpacing: number;
  readonly hooks: Address;
}

/** V4 pool id: keccak256 of the ABI-encoded key, as PoolIdLibrary computes it. */
export const v4PoolId = (key: PoolKey): Hex =>
  keccak256(
    encodeAbiParameters(
      [{ type: "address" }, { type: "address" }, { type: "uint24" }, { type: "int24" }, { type: "address" }],
      [key.currency0, key.currency1, key.fee, key.tickSpacing, key.hooks],
    ),
  );
