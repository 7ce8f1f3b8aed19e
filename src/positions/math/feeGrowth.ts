import { Q128 } from "./tickMath.js";

const MOD_256 = 1n << 256n;
const MAX_UINT128 = (1n << 128n) - 1n;

/** Subtraction modulo 2^256, as fee growth accumulators wrap by design. */
const sub256 = (a: bigint, b: bigint): bigint => (((a - b) % MOD_256) + MOD_256) % MOD_256;

/** A pool's fee growth of one token around a position's range, as read from the pool. */
export interface FeeGrowthReads {
  readonly tickCurrent: number;
  readonly tickLower: number;
  readonly tickUpper: number;
  /** The pool's fee growth per unit of liquidity since it opened (Q128.128). */
  readonly global: bigint;
  /** The lower and upper ticks' fee growth on their far side (`feeGrowthOutside`, Algebra's `outerFeeGrowth`). */
  readonly lowerOutside: bigint;
  readonly upperOutside: bigint;
}

/**
 * Fee growth inside a range, by the three-case rule of V3's `Tick.getFeeGrowthInside`: growth
 * below the lower tick and above the upper tick, subtracted from the global growth, all modulo 2^256.
 */
export const feeGrowthInside = (reads: FeeGrowthReads): bigint => {
  const below =
    reads.tickCurrent >= reads.tickLower ? reads.lowerOutside : sub256(reads.global, reads.lowerOutside);
  const above =
    reads.tickCurrent < reads.tickUpper ? reads.upperOutside : sub256(reads.global, reads.upperOutside);
  return sub256(sub256(reads.global, below), above);
};

/**
 * Fees a position has earned since its last checkpoint: liquidity times the growth inside its
 * range since then, in raw token units (rounded down, truncated to uint128 as the position
 * managers store them). Add the position's stored `tokensOwed` for what it can collect.
 */
export const feesEarned = (liquidity: bigint, inside: bigint, insideLast: bigint): bigint =>
  ((sub256(inside, insideLast) * liquidity) / Q128) & MAX_UINT128;
