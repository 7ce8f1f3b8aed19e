import type { EventBase } from "./EventBase.js";

/**
 * PoolManager `Initialize(PoolId indexed id, Currency indexed currency0, Currency indexed currency1,
 * uint24 fee, int24 tickSpacing, IHooks hooks, uint160 sqrtPriceX96, int24 tick)`.
 */
export interface V4Initialize extends EventBase {
  readonly kind: "v4.initialize";
  /** Pool id: keccak256 of the ABI-encoded PoolKey, 0x + 64 hex. */
  readonly id: string;
  /** The zero address is the chain's native currency. */
  readonly currency0: string;
  readonly currency1: string;
  /** Hundredths of a basis point, or 0x800000 for a dynamic-fee pool. */
  readonly fee: number;
  readonly tickSpacing: number;
  readonly hooks: string;
  readonly sqrtPriceX96: bigint;
  readonly tick: number;
}

/**
 * PoolManager `Swap(PoolId indexed id, address indexed sender, int128 amount0, int128 amount1,
 * uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee)`. Unlike V3, amounts are the
 * caller's balance deltas: negative = the caller paid, positive = the caller received.
 */
export interface V4Swap extends EventBase {
  readonly kind: "v4.swap";
  readonly id: string;
  /** The contract that called `swap` (usually a router), not the end user. */
  readonly sender: string;
  readonly amount0: bigint;
  readonly amount1: bigint;
  readonly sqrtPriceX96: bigint;
  readonly liquidity: bigint;
  readonly tick: number;
  /** Fee charged, hundredths of a basis point. */
  readonly fee: number;
}

/**
 * PoolManager `ModifyLiquidity(PoolId indexed id, address indexed sender, int24 tickLower,
 * int24 tickUpper, int256 liquidityDelta, bytes32 salt)`.
 */
export interface V4ModifyLiquidity extends EventBase {
  readonly kind: "v4.modifyLiquidity";
  readonly id: string;
  readonly sender: string;
  readonly tickLower: number;
  readonly tickUpper: number;
  /** Positive adds liquidity, negative removes it. */
  readonly liquidityDelta: bigint;
  /** Position salt, 0x + 64 hex (the PositionManager uses the token id). */
  readonly salt: string;
}

/** Uniswap V4 PoolManager events. */
export type UniswapV4Event = V4Initialize | V4Swap | V4ModifyLiquidity;
