import type { EventBase } from "./EventBase.js";

/**
 * Pool `Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1,
 * uint160 sqrtPriceX96, uint128 liquidity, int24 tick)`. Amounts are the pool's deltas: positive = the
 * pool received that token, negative = it paid it out.
 */
export interface V3Swap extends EventBase {
  readonly kind: "v3.swap";
  readonly sender: string;
  readonly recipient: string;
  readonly amount0: bigint;
  readonly amount1: bigint;
  readonly sqrtPriceX96: bigint;
  readonly liquidity: bigint;
  readonly tick: number;
}

/**
 * Pool `Mint(address sender, address indexed owner, int24 indexed tickLower, int24 indexed tickUpper,
 * uint128 amount, uint256 amount0, uint256 amount1)`.
 */
export interface V3Mint extends EventBase {
  readonly kind: "v3.mint";
  readonly sender: string;
  readonly owner: string;
  readonly tickLower: number;
  readonly tickUpper: number;
  /** Liquidity added. */
  readonly amount: bigint;
  readonly amount0: bigint;
  readonly amount1: bigint;
}

/**
 * Pool `Burn(address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount,
 * uint256 amount0, uint256 amount1)`.
 */
export interface V3Burn extends EventBase {
  readonly kind: "v3.burn";
  readonly owner: string;
  readonly tickLower: number;
  readonly tickUpper: number;
  /** Liquidity removed. */
  readonly amount: bigint;
  readonly amount0: bigint;
  readonly amount1: bigint;
}

/**
 * Pool `Collect(address indexed owner, address recipient, int24 indexed tickLower, int24 indexed
 * tickUpper, uint128 amount0, uint128 amount1)`.
 */
export interface V3Collect extends EventBase {
  readonly kind: "v3.collect";
  readonly owner: string;
  readonly recipient: string;
  readonly tickLower: number;
  readonly tickUpper: number;
  readonly amount0: bigint;
  readonly amount1: bigint;
}

/**
 * Factory `PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee,
 * int24 tickSpacing, address pool)`.
 */
export interface V3PoolCreated extends EventBase {
  readonly kind: "v3.poolCreated";
  readonly token0: string;
  readonly token1: string;
  /** Hundredths of a basis point (3000 = 0.3 %). */
  readonly fee: number;
  readonly tickSpacing: number;
  readonly pool: string;
}

/** Uniswap V3 (and fork) pool and factory events. */
export type UniswapV3Event = V3Swap | V3Mint | V3Burn | V3Collect | V3PoolCreated;
