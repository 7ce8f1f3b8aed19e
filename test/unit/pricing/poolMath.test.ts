import { describe, expect, it } from "vitest";
import {
  priceFromReserves,
  priceFromSqrtPriceX96,
  toUnits,
  virtualReserves,
} from "../../../src/pricing/poolMath.js";

const Q96 = 2n ** 96n;
/** sqrt(price) * 2^96 for a raw price ratio, via bigint square root. */
const sqrtX96 = (raw1: bigint, raw0: bigint) => {
  const target = (raw1 * Q96 * Q96) / raw0;
  let x = BigInt(Math.floor(Math.sqrt(Number(target))));
  for (let i = 0; i < 50; i++) x = (x + target / x) / 2n;
  return x;
};

describe("poolMath", () => {
  it("default: raw amounts become whole tokens, also beyond 2^53", () => {
    expect(toUnits(1_500_000n, 6)).toBe(1.5);
    expect(toUnits(123456789012345678901234567890n, 18)).toBeCloseTo(123456789012.3456, 3);
    expect(toUnits(0n, 18)).toBe(0);
  });

  it("behavior: WETH/USDC prices agree from reserves and from sqrtPriceX96", () => {
    // token0 = USDC (6), token1 = WETH (18): 3,000 USDC per WETH.
    const reserve0 = 3_000_000n * 10n ** 6n;
    const reserve1 = 1_000n * 10n ** 18n;
    const usdcInWeth = priceFromReserves(reserve0, reserve1, 6, 18)!;
    expect(1 / usdcInWeth).toBeCloseTo(3000, 6);
    const fromSqrt = priceFromSqrtPriceX96(sqrtX96(reserve1, reserve0), 6, 18)!;
    expect(fromSqrt / usdcInWeth).toBeCloseTo(1, 9);
  });

  it("behavior: tiny and huge prices keep their precision", () => {
    // A spam token worth 1e-12 of its pair, both 18 decimals.
    expect(priceFromSqrtPriceX96(sqrtX96(1n, 10n ** 12n), 18, 18)).toBeCloseTo(1e-12, 20);
    expect(priceFromSqrtPriceX96(sqrtX96(10n ** 12n, 1n), 18, 18)! / 1e12).toBeCloseTo(1, 9);
  });

  it("behavior: virtual reserves of full-range liquidity equal a V2 pool's reserves", () => {
    const reserve0 = 1_000n * 10n ** 18n;
    const reserve1 = 4_000n * 10n ** 18n;
    const sqrtPrice = sqrtX96(reserve1, reserve0);
    const liquidity = 2_000n * 10n ** 18n; // sqrt(reserve0 * reserve1)
    const { amount0, amount1 } = virtualReserves(liquidity, sqrtPrice);
    expect(Number(amount0) / Number(reserve0)).toBeCloseTo(1, 9);
    expect(Number(amount1) / Number(reserve1)).toBeCloseTo(1, 9);
  });

  it("error: empty pools have no price", () => {
    expect(priceFromReserves(0n, 5n, 18, 18)).toBeUndefined();
    expect(priceFromSqrtPriceX96(0n, 18, 18)).toBeUndefined();
  });
});
