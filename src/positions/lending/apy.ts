/** Seconds in a (365-day) year, the compounding period lending protocols quote APRs over. */
export const SECONDS_PER_YEAR = 31_536_000;

/**
 * The APY of a rate compounded `periods` times a year, from the rate per period:
 * (1 + r)^n - 1, computed as expm1(n * log1p(r)) so that tiny rates keep their precision.
 */
export const compound = (ratePerPeriod: number, periods: number): number =>
  Math.expm1(periods * Math.log1p(ratePerPeriod));

/** APY from an Aave rate: an APR in ray (1e27), compounded every second. */
export const apyFromRay = (aprRay: bigint): number =>
  compound(Number(aprRay) / 1e27 / SECONDS_PER_YEAR, SECONDS_PER_YEAR);

/** APY from a per-block or per-second rate scaled by 1e18 (cToken, Comet). */
export const apyFromMantissa = (rate: bigint, periodsPerYear: number): number =>
  compound(Number(rate) / 1e18, periodsPerYear);
