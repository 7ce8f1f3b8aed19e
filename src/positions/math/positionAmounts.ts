import { Q96, sqrtPriceAtTick } from "./tickMath.js";

/** Token0 between two sqrt prices for `liquidity`, rounded down (SqrtPriceMath.getAmount0Delta). */
export const amount0Delta = (sqrtA: bigint, sqrtB: bigint, liquidity: bigint): bigint => {
  const [low, high] = sqrtA < sqrtB ? [sqrtA, sqrtB] : [sqrtB, sqrtA];
  if (low === 0n) return 0n;
  return ((liquidity << 96n) * (high - low)) / high / low;
};

/** Token1 between two sqrt prices for `liquidity`, rounded down (SqrtPriceMath.getAmount1Delta). */
export const amount1Delta = (sqrtA: bigint, sqrtB: bigint, liquidity: bigint): bigint => {
  const difference = sqrtA < sqrtB ? sqrtB - sqrtA : sqrtA - sqrtB;
  return (liquidity * difference) / Q96;
};

/** A concentrated-liquidity position against its pool's current state. */
export interface RangeState {
  readonly sqrtPriceX96: bigint;
  /** The pool's current tick (slot0), which decides whether the position is in range. */
  readonly tickCurrent: number;
  readonly tickLower: number;
  readonly tickUpper: number;
  readonly liquidity: bigint;
}

/**
 * Raw token amounts the position's liquidity holds at the pool's price, rounded down as the
 * Uniswap SDKs (`Position.amount0/amount1`) and a burn would pay them: all token0 below the
 * range, all token1 above it, both inside.
 */
export const positionAmounts = (
  state: RangeState,
): { readonly amount0: bigint; readonly amount1: bigint } => {
  const lower = sqrtPriceAtTick(state.tickLower);
  const upper = sqrtPriceAtTick(state.tickUpper);
  if (state.tickCurrent < state.tickLower)
    return { amount0: amount0Delta(lower, upper, state.liquidity), amount1: 0n };
  if (state.tickCurrent < state.tickUpper)
    return {
      amount0: amount0Delta(state.sqrtPriceX96, upper, state.liquidity),
      amount1: amount1Delta(lower, state.sqrtPriceX96, state.liquidity),
    };
  return { amount0: 0n, amount1: amount1Delta(lower, upper, state.liquidity) };
};

/** Whether the pool's price is inside the position's range (it earns fees there). */
export const inRange = (state: Pick<RangeState, "tickCurrent" | "tickLower" | "tickUpper">): boolean =>
  state.tickLower <= state.tickCurrent && state.tickCurrent < state.tickUpper;
