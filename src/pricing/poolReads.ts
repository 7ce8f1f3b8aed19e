import { encodeFunctionData, type Hex, parseAbi } from "viem";
import type { RawCall, RawResult } from "../chains/multicall3.js";
import type { IndexedPool } from "../indexer/IndexRecords.js";
import { decodeDepth, reserveEquivalent, v3DepthCall, v4DepthCall } from "./lens/depthLens.js";

export { NATIVE_CURRENCY } from "../chains/balanceReads.js";

const GET_RESERVES = encodeFunctionData({
  abi: parseAbi(["function getReserves() view returns (uint112, uint112, uint32)"]),
  functionName: "getReserves",
});

/** What is read of a pool at one block, before prices are known. */
export interface PoolSnapshot {
  readonly pool: IndexedPool;
  /** V3/V4 sqrtPriceX96; undefined for V2, whose price is the ratio of its reserves. */
  readonly sqrtPriceX96: bigint | undefined;
  /**
   * How much of each token stands behind the price, as the reserve of a constant-product pool
   * of the same depth within a factor of 1.02 of the price: V2 pools' own reserves; for V3/V4
   * pools, what their positions pay out inside that band (PoolDepthLens.sol), scaled to a
   * reserve. Balances of the pool or pool manager never count: donations, claims and other
   * pools' tokens back no price.
   */
  readonly depth0: bigint;
  readonly depth1: bigint;
}

/** Where a pool's state is read from, besides the pool itself. */
export interface PoolReadContext {
  /** The V4 StateView of each pool manager (by pool manager address). */
  readonly stateViews: ReadonlyMap<string, string | undefined>;
  /** Runtime code of PoolDepthLens.sol (`depthLensCode()`), run by state override. */
  readonly lensCode: Hex;
}

/**
 * The calls that read a pool's state: V2 `getReserves`, one PoolDepthLens call for a
 * V3 or V4 pool. A V4 pool without a known StateView, or a pool without a tick spacing,
 * is not read; nor are Algebra pools, which hold positions but do not set prices.
 */
export const poolCalls = (pool: IndexedPool, context: PoolReadContext): ReadonlyArray<RawCall> => {
  switch (pool.kind) {
    case "v2":
      return [{ target: pool.pool, callData: GET_RESERVES }];
    case "v3":
      return pool.tick_spacing === null ? [] : [v3DepthCall(context.lensCode, pool.pool, pool.tick_spacing)];
    case "v4": {
      const stateView = context.stateViews.get(pool.factory);
      if (stateView === undefined || pool.tick_spacing === null) return [];
      return [v4DepthCall(context.lensCode, stateView, pool.pool, pool.tick_spacing)];
    }
    case "algebra":
      return [];
  }
};

const word = (result: RawResult | undefined, index: number): bigint | undefined => {
  if (result === undefined || !result.success) return undefined;
  const start = 2 + index * 64;
  if (result.returnData.length < start + 64) return undefined;
  return BigInt(`0x${result.returnData.slice(start, start + 64)}`);
};

/** Decodes what `poolCalls` read; `undefined` when the pool could not be read or holds nothing. */
export const decodePool = (
  pool: IndexedPool,
  results: ReadonlyArray<RawResult>,
): PoolSnapshot | undefined => {
  if (pool.kind === "v2") {
    const reserve0 = word(results[0], 0);
    const reserve1 = word(results[0], 1);
    if (reserve0 === undefined || reserve1 === undefined || reserve0 === 0n || reserve1 === 0n)
      return undefined;
    return { pool, sqrtPriceX96: undefined, depth0: reserve0, depth1: reserve1 };
  }
  const depth = decodeDepth(results[0]);
  if (depth === undefined || depth.sqrtPriceX96 === 0n) return undefined;
  if (depth.band0 === 0n && depth.band1 === 0n) return undefined;
  return {
    pool,
    sqrtPriceX96: depth.sqrtPriceX96,
    depth0: reserveEquivalent(depth.band0),
    depth1: reserveEquivalent(depth.band1),
  };
};
