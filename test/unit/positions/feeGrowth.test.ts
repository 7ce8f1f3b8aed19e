import { describe, expect, it } from "vitest";
import { feeGrowthInside, feesEarned } from "../../../src/positions/math/feeGrowth.js";
import { Q128 } from "../../../src/positions/math/tickMath.js";

const MOD = 1n << 256n;

describe("feeGrowthInside", () => {
  const base = { tickLower: -100, tickUpper: 100, global: 1_000n, lowerOutside: 100n, upperOutside: 300n };

  it("default: in range, growth inside is global minus what lies below and above", () => {
    // below = lowerOutside (100), above = upperOutside (300)
    expect(feeGrowthInside({ ...base, tickCurrent: 0 })).toBe(600n);
  });

  it("behavior: below the range, the lower tick's outside growth is on the price's side", () => {
    // below = global - lowerOutside (900), above = upperOutside (300): inside = 1000 - 900 - 300 (mod 2^256)
    expect(feeGrowthInside({ ...base, tickCurrent: -200 })).toBe(MOD - 200n);
    // The negative modular inside cancels against the position's last checkpoint, as in the pools.
    expect(feesEarned(Q128, feeGrowthInside({ ...base, tickCurrent: -200 }), MOD - 250n)).toBe(50n);
  });

  it("behavior: above the range, the upper tick's outside growth is on the price's side; the upper tick itself counts as above", () => {
    // below = lowerOutside (100), above = global - upperOutside (700)
    expect(feeGrowthInside({ ...base, tickCurrent: 100 })).toBe(200n);
    expect(feeGrowthInside({ ...base, tickCurrent: 500 })).toBe(200n);
  });

  it("behavior: accumulators that wrapped past 2^256 still give the growth since the checkpoint", () => {
    const inside = feeGrowthInside({
      ...base,
      tickCurrent: 0,
      global: 5n,
      lowerOutside: MOD - 10n,
      upperOutside: 3n,
    });
    expect(inside).toBe(12n);
    expect(feesEarned(3n * Q128, inside, MOD - 8n)).toBe(60n);
  });
});

describe("feesEarned", () => {
  it("default: liquidity times growth since the checkpoint, in Q128, rounded down", () => {
    expect(feesEarned(10n ** 18n, 5n * Q128 + Q128 / 3n, 0n)).toBe(5n * 10n ** 18n + 10n ** 18n / 3n);
    expect(feesEarned(7n, Q128 - 1n, 0n)).toBe(6n);
  });
});
