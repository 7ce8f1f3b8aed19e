import type { ManifestLendingPosition } from "../../DevnetManifest.js";
import type { WalletRole } from "../../devAccounts.js";
import { AAVE_RESERVES, type AaveReserveSymbol } from "./aaveReserves.js";

/** Whole tokens per reserve. */
export type AaveAmounts = Partial<Record<AaveReserveSymbol, number>>;

/** What one wallet does in every Aave market of a chain: supply (which makes it collateral), then borrow at a variable rate. */
export interface AaveWalletPlan {
  readonly role: WalletRole;
  readonly purpose: ManifestLendingPosition["purpose"];
  readonly supply: AaveAmounts;
  readonly borrow: AaveAmounts;
}

/**
 * Whole tokens of `symbol` to borrow so that the health factor, Aave's sum of collateral × liquidation
 * threshold over the debt, starts at `health` (at the oracle's prices).
 */
const borrowForHealth = (collateral: AaveAmounts, symbol: AaveReserveSymbol, health: number): number => {
  const usd = (s: AaveReserveSymbol) => Number(AAVE_RESERVES[s].usdE8) / 1e8;
  const weighted = (Object.entries(collateral) as [AaveReserveSymbol, number][]).reduce(
    (sum, [s, amount]) => sum + amount * usd(s) * (Number(AAVE_RESERVES[s].liquidationThreshold) / 10_000),
    0,
  );
  return Math.floor(weighted / health / usd(symbol));
};

/** The borrower's collateral: 10 WETH (30,000 USD). */
const BORROWER_COLLATERAL: AaveAmounts = { WETH: 10 };
/** The liquidated wallet's collateral: 0.1 WBTC (6,000 USD), the asset whose price the seed drops. */
export const LIQUIDATED_COLLATERAL: AaveAmounts = { WBTC: 0.1 };

/** The health factor the `borrower` starts at; interest lowers it a little over the history. */
export const BORROWER_HEALTH = 1.2;

/**
 * The seeded Aave wallets (docs/devnet.md, "Lending positions"). `lendingAll` supplies two assets and owes
 * two in every Aave market; the debt-only wallet owes WETH while its collateral is USDC, so its WETH reserve
 * holds debt and no supply; the liquidated wallet starts at health 1.125 on WBTC collateral, which a 20 %
 * WBTC price drop takes under 1.
 */
export const AAVE_WALLET_PLANS: readonly AaveWalletPlan[] = [
  { role: "aaveSupplier", purpose: "supplier", supply: { USDC: 10_000, WETH: 2 }, borrow: {} },
  {
    role: "aaveBorrower",
    purpose: "borrower",
    supply: BORROWER_COLLATERAL,
    borrow: { USDC: borrowForHealth(BORROWER_COLLATERAL, "USDC", BORROWER_HEALTH) },
  },
  {
    role: "lendingAll",
    purpose: "every_market",
    supply: { WETH: 5, WBTC: 0.1 },
    borrow: { USDC: 4_000, UNI: 200 },
  },
  { role: "aaveDebtOnly", purpose: "debt_only", supply: { USDC: 10_000 }, borrow: { WETH: 1 } },
  {
    role: "aaveLiquidated",
    purpose: "liquidated",
    supply: LIQUIDATED_COLLATERAL,
    borrow: { USDC: borrowForHealth(LIQUIDATED_COLLATERAL, "USDC", 1.125) },
  },
];

/** What the deployer supplies to each market first, so there is liquidity to borrow. */
export const AAVE_MARKET_LIQUIDITY: AaveAmounts = { USDC: 200_000, WETH: 50, WBTC: 2, UNI: 20_000 };
