/**
 * Valuation math of the Pendle V2 yield-splitting design (docs/positions.md, "YieldSplit"). Amounts are
 * raw integers in the design's 1e18 fixed point where Pendle uses it; prices are plain numbers.
 */

const ONE = 10n ** 18n;
const SECONDS_PER_YEAR = 365 * 86_400;

/**
 * What one PT is worth in its asset: 1 at or after expiry; before it, the market's implied rate
 * discounted over the time left, `exp(−lnImpliedRate × secondsLeft / year)` (Pendle's own
 * `MarketMathCore._getExchangeRateFromImpliedRate`, inverted: it gives assets → PT).
 */
export const ptToAssetRate = (lnImpliedRate: bigint, secondsToExpiry: number): number =>
  secondsToExpiry <= 0 ? 1 : Math.exp((-Number(lnImpliedRate) / 1e18) * (secondsToExpiry / SECONDS_PER_YEAR));

/** The market's implied APY from its stored `lastLnImpliedRate`: `e^rate − 1`. */
export const impliedApy = (lnImpliedRate: bigint): number => Math.expm1(Number(lnImpliedRate) / 1e18);

/** SY to its asset at `exchangeRate` (Pendle's `SYUtils.syToAsset`, rounding down). */
export const syToAsset = (sy: bigint, exchangeRate: bigint): bigint => (sy * exchangeRate) / ONE;

/**
 * The index a YT's interest is settled at now: before expiry the larger of the SY's exchange rate and
 * the YT's stored index (`pyIndexCurrent` never goes down); after expiry the index frozen at the first
 * post-expiry action, or, when none has happened yet, what that action would freeze now.
 */
export const currentInterestIndex = (options: {
  readonly exchangeRate: bigint;
  readonly pyIndexStored: bigint;
  /** `getPostExpiryData().firstPYIndex`; undefined when not set yet (or not expired). */
  readonly firstPostExpiryIndex: bigint | undefined;
}): bigint => {
  if (options.firstPostExpiryIndex !== undefined && options.firstPostExpiryIndex > 0n)
    return options.firstPostExpiryIndex;
  // biome-ignore lint/complexity/useMathMinMax: bigints, which Math.max does not take
  return options.exchangeRate > options.pyIndexStored ? options.exchangeRate : options.pyIndexStored;
};

/**
 * Interest a YT holder can claim, in SY, net of the factory's interest fee: what the YT has recorded
 * (`userInterest.accrued`) plus what the index moved since the holder's last settlement, as
 * `InterestManagerYT._distributeInterestPrivate` adds it: `balance × (current − last) / (last × current)`.
 */
export const ytAccruedInterest = (options: {
  readonly balance: bigint;
  readonly lastIndex: bigint;
  readonly accrued: bigint;
  readonly currentIndex: bigint;
  /** `interestFeeRate()`, 1e18 = 100 %. */
  readonly feeRate: bigint;
}): bigint => {
  const { balance, lastIndex, accrued, currentIndex, feeRate } = options;
  const pending =
    lastIndex === 0n || currentIndex <= lastIndex
      ? 0n
      : (balance * (currentIndex - lastIndex) * ONE) / (lastIndex * currentIndex);
  const total = accrued + pending;
  return total - (total * feeRate) / ONE;
};

/**
 * Assets (raw) one raw LP token of a market stands for: its PT valued at `ptRate` and its SY at the
 * exchange rate, shared by the LP supply.
 */
export const lpAssetsPerToken = (options: {
  readonly totalPt: bigint;
  readonly totalSy: bigint;
  readonly lpSupply: bigint;
  readonly exchangeRate: bigint;
  readonly ptRate: number;
}): number => {
  if (options.lpSupply === 0n) return 0;
  const assets =
    Number(options.totalPt) * options.ptRate + Number(syToAsset(options.totalSy, options.exchangeRate));
  return assets / Number(options.lpSupply);
};
