import type { EventBase } from "./EventBase.js";

/**
 * Pair `Swap(address indexed sender, uint amount0In, uint amount1In, uint amount0Out, uint amount1Out,
 * address indexed to)`.
 */
export interface V2Swap extends EventBase {
  readonly kind: "v2.swap";
  readonly sender: string;
  readonly amount0In: bigint;
  readonly amount1In: bigint;
  readonly amount0Out: bigint;
  readonly amount1Out: bigint;
  readonly to: string;
}

/** Pair `Mint(address indexed sender, uint amount0, uint amount1)`: liquidity added. */
export interface V2Mint extends EventBase {
  readonly kind: "v2.mint";
  readonly sender: string;
  readonly amount0: bigint;
  readonly amount1: bigint;
}

/** Pair `Burn(address indexed sender, uint amount0, uint amount1, address indexed to)`: liquidity removed. */
export interface V2Burn extends EventBase {
  readonly kind: "v2.burn";
  readonly sender: string;
  readonly amount0: bigint;
  readonly amount1: bigint;
  readonly to: string;
}

/** Pair `Sync(uint112 reserve0, uint112 reserve1)`: reserves after every state change. */
export interface V2Sync extends EventBase {
  readonly kind: "v2.sync";
  readonly reserve0: bigint;
  readonly reserve1: bigint;
}

/** Factory `PairCreated(address indexed token0, address indexed token1, address pair, uint)`. */
export interface V2PairCreated extends EventBase {
  readonly kind: "v2.pairCreated";
  readonly token0: string;
  readonly token1: string;
  readonly pair: string;
  /** The factory's pair count after this one (`allPairs.length`). */
  readonly allPairsLength: bigint;
}

/** Uniswap V2 (and fork) pair and factory events. */
export type UniswapV2Event = V2Swap | V2Mint | V2Burn | V2Sync | V2PairCreated;
