import { borrowForHealth, TARGET_HEALTH, type WalletPlan } from "../compoundPlan.js";
import { CTOKEN_COLLATERAL_FACTORS } from "./deployCTokenMarket.js";

const factor = (symbol: keyof typeof CTOKEN_COLLATERAL_FACTORS) => CTOKEN_COLLATERAL_FACTORS[symbol];

/**
 * The wallets of each cToken deployment (docs/devnet.md, "Lending positions"). A wallet that borrows
 * enters every market it supplied as collateral; the supplier enters none (its supply is not collateral).
 * The liquidated wallet borrows close to its limit (health about 1.07) so that a 20 % drop of the oracle's
 * ETH price puts it in shortfall.
 */
export const CTOKEN_PLAN: readonly WalletPlan[] = [
  { role: "compoundSupplier", purpose: "supplier", supply: { USDC: 100_000, WETH: 20 } },
  {
    role: "lendingAll",
    purpose: "every_market",
    supply: { WETH: 5, WBTC: 0.2, UNI: 500 },
    borrow: { symbol: "USDC", amount: 5_000 },
  },
  {
    role: "compoundBorrower",
    purpose: "borrower",
    supply: { WETH: 10 },
    borrow: { symbol: "USDC", amount: borrowForHealth({ WETH: 10 }, factor, "USDC", TARGET_HEALTH) },
  },
  {
    role: "compoundDebtOnly",
    purpose: "debt_only",
    supply: { WBTC: 1 },
    borrow: { symbol: "WETH", amount: 5 },
  },
  {
    role: "compoundLiquidated",
    purpose: "liquidated",
    supply: { WETH: 2 },
    borrow: { symbol: "USDC", amount: 4_500 },
  },
];

/** The ETH price the liquidated wallet's collateral drops to before it is liquidated (from 3,000). */
export const CTOKEN_LIQUIDATION_ETH_USD = 2_400;

/** How much of the liquidated wallet's USDC debt the liquidator repays (close factor 50 % allows 2,250). */
export const CTOKEN_LIQUIDATION_REPAY_USDC = 2_000;
