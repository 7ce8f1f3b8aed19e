import { describe, expect, it } from "vitest";
import { fullRangeTicks, Q96, sqrtBigInt, sqrtPriceX96FromAmounts } from "../../../src/devnet/poolMath.js";

describe("poolMath", () => {
  it("behavior: sqrtBigInt is the exact floor square root of 2^192-scale values", () => {
    const value = (123_456_789_012_345n << 192n) + 987n;
    const root = sqrtBigInt(value);
    expect(root * root <= value).toBe(true);
    expect((root + 1n) * (root + 1n) > value).toBe(true);
  });

  it("behavior: sqrtPriceX96 of equal amounts is 2^96", () => {
    expect(sqrtPriceX96FromAmounts(10n ** 18n, 10n ** 18n)).toBe(Q96);
  });

  it("args: full-range ticks are multiples of the spacing inside +-887272", () => {
    expect(fullRangeTicks(60)).toEqual({ tickLower: -887220, tickUpper: 887220 });
    expect(fullRangeTicks(10)).toEqual({ tickLower: -887270, tickUpper: 887270 });
  });
});
