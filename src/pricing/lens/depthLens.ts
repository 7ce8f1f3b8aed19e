import { type Hex, toFunctionSelector } from "viem";
import type { RawCall, RawResult } from "../../chains/multicall3.js";

/**
 * Where PoolDepthLens.sol's code is placed by the state override of the eth_calls that use it:
 * the last 20 bytes of keccak256("wallet-data-service/PoolDepthLens"), an address with no code
 * on any chain, so the override shadows nothing.
 */
export const DEPTH_LENS_ADDRESS = "0x35a1488827910bdab3216a7b5713dc8fb846fe70";

/** sqrt(1.02) scaled by 1e18, as in PoolDepthLens.sol: the band is a factor of 1.02 in price. */
const SQRT_BAND_E18 = 1_009_950_493_836_207_795n;
const E18 = 10n ** 18n;
/**
 * The share of a constant-product pool's reserve paid out while its price moves by a factor of
 * 1.02: 1 - 1/sqrt(1.02), about 0.985 %, scaled by 1e18. Dividing a band depth by it gives the
 * reserve of the V2 pool with the same depth.
 */
const BAND_SHARE_E18 = E18 - E18 ** 2n / SQRT_BAND_E18;

const V3 = toFunctionSelector("v3(address,int24)");
const V4 = toFunctionSelector("v4(address,bytes32,int24)");

const word = (value: string | bigint): string =>
  (typeof value === "bigint" ? BigInt.asUintN(256, value).toString(16) : value.slice(2)).padStart(64, "0");

/** The lens call that measures a V3-design pool; `code` is the lens's runtime code (`depthLensCode`). */
export const v3DepthCall = (code: Hex, pool: string, tickSpacing: number): RawCall => ({
  target: DEPTH_LENS_ADDRESS,
  callData: `${V3}${word(pool)}${word(BigInt(tickSpacing))}` as Hex,
  code,
});

/** The lens call that measures a V4 pool through its pool manager's StateView. */
export const v4DepthCall = (code: Hex, stateView: string, poolId: string, tickSpacing: number): RawCall => ({
  target: DEPTH_LENS_ADDRESS,
  callData: `${V4}${word(stateView)}${word(poolId)}${word(BigInt(tickSpacing))}` as Hex,
  code,
});

/** A concentrated-liquidity pool as the lens measured it. */
export interface PoolDepth {
  readonly sqrtPriceX96: bigint;
  readonly tick: number;
  /** Liquidity active at the current price. */
  readonly liquidity: bigint;
  /** Raw token0 the pool's liquidity pays out while the price rises to 1.02 times itself. */
  readonly band0: bigint;
  /** Raw token1 the pool's liquidity pays out while the price falls to 1/1.02 times itself. */
  readonly band1: bigint;
}

const uintAt = (data: Hex, index: number): bigint =>
  BigInt(`0x${data.slice(2 + index * 64, 66 + index * 64)}`);

/** Decodes a lens answer (five words); `undefined` when the call failed or answered short. */
export const decodeDepth = (result: RawResult | undefined): PoolDepth | undefined => {
  if (result === undefined || !result.success || result.returnData.length < 2 + 5 * 64) return undefined;
  const data = result.returnData;
  return {
    sqrtPriceX96: uintAt(data, 0),
    tick: Number(BigInt.asIntN(24, uintAt(data, 1))),
    liquidity: uintAt(data, 2),
    band0: uintAt(data, 3),
    band1: uintAt(data, 4),
  };
};

/**
 * A band depth expressed as the reserve of the constant-product (V2) pool that has the same
 * depth within the band. A full-range V3 position gets exactly its real reserve, so V2 and V3
 * pools of the same capital compare as equals (see docs/pricing.md).
 */
export const reserveEquivalent = (bandDepth: bigint): bigint => (bandDepth * E18) / BAND_SHARE_E18;
