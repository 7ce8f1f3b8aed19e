import type { TokenSymbol } from "../../tokenSpecs.js";

/** The tokens every devnet Aave market lists: the ones with DEX pools, so the service can price them. */
export const AAVE_RESERVE_SYMBOLS = ["WETH", "USDC", "WBTC", "UNI"] as const satisfies readonly TokenSymbol[];
export type AaveReserveSymbol = (typeof AAVE_RESERVE_SYMBOLS)[number];

/** Risk parameters of one reserve, in basis points as the configurator takes them. */
export interface AaveReserveSpec {
  /** Oracle price in USD with 8 decimals, the same as the DEX markets open at (docs/devnet.md, "Markets"). */
  readonly usdE8: bigint;
  readonly ltv: bigint;
  readonly liquidationThreshold: bigint;
  /** 10,000 plus the liquidator's bonus. */
  readonly liquidationBonus: bigint;
}

/**
 * Prices match the DEX markets' opening prices (ETH 3,000, WBTC 20 ETH, UNI 10 USD in the deep pool); risk
 * parameters are close to Aave's own for these assets.
 */
export const AAVE_RESERVES: Readonly<Record<AaveReserveSymbol, AaveReserveSpec>> = {
  WETH: { usdE8: 3_000n * 10n ** 8n, ltv: 8_000n, liquidationThreshold: 8_250n, liquidationBonus: 10_500n },
  USDC: { usdE8: 10n ** 8n, ltv: 7_700n, liquidationThreshold: 8_000n, liquidationBonus: 10_450n },
  WBTC: { usdE8: 60_000n * 10n ** 8n, ltv: 7_000n, liquidationThreshold: 7_500n, liquidationBonus: 10_650n },
  UNI: { usdE8: 10n * 10n ** 8n, ltv: 5_000n, liquidationThreshold: 6_500n, liquidationBonus: 11_000n },
};

/** Aave V2 prices assets in ETH (wei per whole token): the USD price over ETH's. */
export const priceInEthWei = (usdE8: bigint): bigint => (usdE8 * 10n ** 18n) / AAVE_RESERVES.WETH.usdE8;

const RAY = 10n ** 27n;
/** `percent` % as a ray (1e27 = 100 %), the unit of Aave's rate strategies. */
const rayPercent = (percent: number): bigint => (BigInt(Math.round(percent * 100)) * RAY) / 10_000n;

/**
 * One variable-rate curve for every reserve: 2 % at zero usage, 6 % at the 80 % kink, 81 % at full usage.
 * The base rate keeps every borrow rate above zero, so debt grows as the devnet's history advances time.
 * Stable slopes are 0: stable borrowing stays off.
 */
export const AAVE_RATE_CURVE = {
  optimalUsage: rayPercent(80),
  baseVariable: rayPercent(2),
  variableSlope1: rayPercent(4),
  variableSlope2: rayPercent(75),
  stableSlope1: rayPercent(0),
  stableSlope2: rayPercent(0),
} as const;

/** The curve in the order both versions' DefaultReserveInterestRateStrategy take it after the addresses provider. */
export const rateCurveArgs = () => {
  const c = AAVE_RATE_CURVE;
  return [
    c.optimalUsage,
    c.baseVariable,
    c.variableSlope1,
    c.variableSlope2,
    c.stableSlope1,
    c.stableSlope2,
  ] as const;
};
