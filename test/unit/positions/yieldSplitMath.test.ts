import { describe, expect, it } from "vitest";
import {
  currentInterestIndex,
  impliedApy,
  lpAssetsPerToken,
  ptToAssetRate,
  syToAsset,
  ytAccruedInterest,
} from "../../../src/positions/math/yieldSplit.js";

const ONE = 10n ** 18n;
const YEAR = 365 * 86_400;
/** ln(1.05) in Pendle's 1e18 fixed point: a 5 % implied APY. */
const LN_105 = BigInt(Math.round(Math.log(1.05) * 1e18));

describe("ptToAssetRate", () => {
  it("default: one year before expiry at a 5 % implied APY, a PT is worth 1/1.05 of its asset", () => {
    expect(ptToAssetRate(LN_105, YEAR)).toBeCloseTo(1 / 1.05, 12);
  });

  it("behavior: the discount shrinks as expiry nears, and at or after expiry a PT is worth exactly one asset", () => {
    expect(ptToAssetRate(LN_105, YEAR / 2)).toBeCloseTo(1 / Math.sqrt(1.05), 12);
    expect(ptToAssetRate(LN_105, YEAR / 2)).toBeGreaterThan(ptToAssetRate(LN_105, YEAR));
    expect(ptToAssetRate(LN_105, 0)).toBe(1);
    expect(ptToAssetRate(LN_105, -86_400)).toBe(1);
  });

  it("edge: a zero implied rate prices the PT at par", () => {
    expect(ptToAssetRate(0n, YEAR)).toBe(1);
  });
});

describe("impliedApy", () => {
  it("default: e^ln(1.05) − 1 is 5 %", () => {
    expect(impliedApy(LN_105)).toBeCloseTo(0.05, 12);
  });
});

describe("ytAccruedInterest", () => {
  const base = { balance: 1_000n * ONE, lastIndex: ONE, accrued: 0n, feeRate: 0n };

  it("default: the index rising 10 % pays balance × (1.1 − 1)/(1 × 1.1) SY, which is worth 100 assets at the new rate", () => {
    const interest = ytAccruedInterest({ ...base, currentIndex: (11n * ONE) / 10n });
    // 1000 × 0.1 / 1.1 = 90.909… SY
    expect(interest).toBe((1_000n * ONE * (ONE / 10n) * ONE) / (ONE * ((11n * ONE) / 10n)));
    expect(Number(syToAsset(interest, (11n * ONE) / 10n)) / 1e18).toBeCloseTo(100, 9);
  });

  it("behavior: interest already recorded is added, and the factory's fee is taken off the total", () => {
    const interest = ytAccruedInterest({ ...base, accrued: 5n * ONE, currentIndex: ONE, feeRate: ONE / 10n });
    expect(interest).toBe((5n * ONE * 9n) / 10n);
  });

  it("edge: a holder never settled (index 0) or an index that did not rise adds nothing", () => {
    expect(ytAccruedInterest({ ...base, lastIndex: 0n, currentIndex: 2n * ONE })).toBe(0n);
    expect(ytAccruedInterest({ ...base, currentIndex: ONE })).toBe(0n);
  });
});

describe("currentInterestIndex", () => {
  it("default: before expiry the larger of the exchange rate and the stored index", () => {
    expect(
      currentInterestIndex({ exchangeRate: 2n, pyIndexStored: 3n, firstPostExpiryIndex: undefined }),
    ).toBe(3n);
    expect(
      currentInterestIndex({ exchangeRate: 4n, pyIndexStored: 3n, firstPostExpiryIndex: undefined }),
    ).toBe(4n);
  });

  it("behavior: after expiry the index frozen at the first post-expiry action, once set", () => {
    expect(currentInterestIndex({ exchangeRate: 9n, pyIndexStored: 3n, firstPostExpiryIndex: 5n })).toBe(5n);
    expect(currentInterestIndex({ exchangeRate: 9n, pyIndexStored: 3n, firstPostExpiryIndex: 0n })).toBe(9n);
  });
});

describe("lpAssetsPerToken", () => {
  it("default: PT at its rate plus SY at the exchange rate, shared by the LP supply", () => {
    const perToken = lpAssetsPerToken({
      totalPt: 600n,
      totalSy: 400n,
      lpSupply: 500n,
      exchangeRate: (11n * ONE) / 10n,
      ptRate: 0.95,
    });
    expect(perToken).toBeCloseTo((600 * 0.95 + 440) / 500, 12);
  });

  it("edge: an empty market stands for nothing", () => {
    expect(lpAssetsPerToken({ totalPt: 0n, totalSy: 0n, lpSupply: 0n, exchangeRate: ONE, ptRate: 1 })).toBe(
      0,
    );
  });
});
