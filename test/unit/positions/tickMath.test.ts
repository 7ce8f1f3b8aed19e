import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { amount0Delta, amount1Delta, positionAmounts } from "../../../src/positions/math/positionAmounts.js";
import { MAX_TICK, MIN_TICK, Q96, sqrtPriceAtTick } from "../../../src/positions/math/tickMath.js";

/** Fixed-point scale of the reference: 2^256, far finer than TickMath's Q128.128 constants. */
const SCALE = 1n << 256n;

const isqrt = (value: bigint): bigint => {
  if (value < 2n) return value;
  let x = value;
  let y = (x + 1n) / 2n;
  while (y < x) {
    x = y;
    y = (x + value / x) / 2n;
  }
  return x;
};

/** sqrt(1.0001^tick) * 2^96 computed independently: 1.0001^|tick| by squaring at 2^-256 precision, then a square root. */
const referenceSqrtPrice = (tick: number): bigint => {
  let result = SCALE;
  let base = (SCALE * 10001n) / 10000n;
  for (let e = Math.abs(tick); e > 0; e >>= 1) {
    if (e & 1) result = (result * base) / SCALE;
    base = (base * base) / SCALE;
  }
  const ratio = tick < 0 ? (SCALE * SCALE) / result : result;
  // sqrt(ratio / SCALE) * 2^96 = sqrt(ratio * SCALE) * 2^96 / SCALE
  return (isqrt(ratio * SCALE) * Q96) / SCALE;
};

const tick = fc.integer({ min: MIN_TICK, max: MAX_TICK });
const liquidity = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });
const sqrtPrice = fc.bigInt({ min: 4295128739n, max: 1461446703485210103287273052203988822378723970342n });

describe("tick math", () => {
  it("default: the bounds and tick 0 are TickMath's constants", () => {
    expect(sqrtPriceAtTick(0)).toBe(Q96);
    expect(sqrtPriceAtTick(MIN_TICK)).toBe(4295128739n);
    expect(sqrtPriceAtTick(MAX_TICK)).toBe(1461446703485210103287273052203988822378723970342n);
  });

  it("behavior: sqrtPriceAtTick is within one unit (plus TickMath's 1e-19 relative approximation) of sqrt(1.0001^tick) * 2^96", () => {
    fc.assert(
      fc.property(tick, (t) => {
        const ours = sqrtPriceAtTick(t);
        const ideal = referenceSqrtPrice(t);
        const error = ours > ideal ? ours - ideal : ideal - ours;
        expect(error <= 1n + ideal / 10n ** 19n).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("behavior: sqrtPriceAtTick strictly increases with the tick", () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_TICK, max: MAX_TICK - 1 }), (t) => {
        expect(sqrtPriceAtTick(t + 1) > sqrtPriceAtTick(t)).toBe(true);
      }),
    );
  });

  it("error: a tick outside the range throws", () => {
    expect(() => sqrtPriceAtTick(MAX_TICK + 1)).toThrow(RangeError);
    expect(() => sqrtPriceAtTick(MIN_TICK - 1)).toThrow(RangeError);
  });
});

describe("amount deltas", () => {
  it("behavior: equal the exact rational formulas, rounded down", () => {
    fc.assert(
      fc.property(sqrtPrice, sqrtPrice, liquidity, (a, b, l) => {
        const [low, high] = a < b ? [a, b] : [b, a];
        expect(amount0Delta(a, b, l)).toBe((l * Q96 * (high - low)) / (high * low));
        expect(amount1Delta(a, b, l)).toBe((l * (high - low)) / Q96);
      }),
      { numRuns: 500 },
    );
  });
});

describe("positionAmounts", () => {
  const range = fc
    .tuple(tick, tick)
    .filter(([a, b]) => a !== b)
    .map(([a, b]): readonly [number, number] => (a < b ? [a, b] : [b, a]));

  it("behavior: all token0 below the range, all token1 above it, both inside, and the parts add up across the price", () => {
    fc.assert(
      fc.property(range, tick, liquidity, ([lower, upper], current, l) => {
        const sqrtPriceX96 = sqrtPriceAtTick(current);
        const amounts = positionAmounts({
          sqrtPriceX96,
          tickCurrent: current,
          tickLower: lower,
          tickUpper: upper,
          liquidity: l,
        });
        const lowerSqrt = sqrtPriceAtTick(lower);
        const upperSqrt = sqrtPriceAtTick(upper);
        if (current < lower) {
          expect(amounts).toEqual({ amount0: amount0Delta(lowerSqrt, upperSqrt, l), amount1: 0n });
        } else if (current >= upper) {
          expect(amounts).toEqual({ amount0: 0n, amount1: amount1Delta(lowerSqrt, upperSqrt, l) });
        } else {
          expect(amounts.amount0).toBe(amount0Delta(sqrtPriceX96, upperSqrt, l));
          expect(amounts.amount1).toBe(amount1Delta(lowerSqrt, sqrtPriceX96, l));
          // Splitting the range at the price loses at most one unit to rounding on each side.
          expect(amount0Delta(lowerSqrt, upperSqrt, l) - amounts.amount0 >= 0n).toBe(true);
          expect(amount1Delta(lowerSqrt, upperSqrt, l) - amounts.amount1 >= 0n).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("default: a full-range position holds the pool's virtual reserves, L/sqrtP and L*sqrtP", () => {
    const l = 10n ** 24n;
    const sqrtPriceX96 = sqrtPriceAtTick(-201_000) + 12_345n;
    const { amount0, amount1 } = positionAmounts({
      sqrtPriceX96,
      tickCurrent: -201_000,
      tickLower: -887_220,
      tickUpper: 887_220,
      liquidity: l,
    });
    expect(Number(amount0) / Number((l * Q96) / sqrtPriceX96)).toBeCloseTo(1, 9);
    expect(Number(amount1) / Number((l * sqrtPriceX96) / Q96)).toBeCloseTo(1, 9);
  });
});
