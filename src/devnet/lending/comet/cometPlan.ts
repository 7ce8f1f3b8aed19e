import { borrowForHealth, TARGET_HEALTH, type WalletPlan } from "../compoundPlan.js";
import { COMET_COLLATERAL, type CometCollateral } from "./deployComet.js";

const liquidateFactor = (symbol: string) => COMET_COLLATERAL[symbol as CometCollateral].liquidateCF;

/**
 * The wallets of each Comet market (docs/devnet.md, "Lending positions"). Supplying USDC is base supply;
 * supplying WETH or WBTC is collateral; borrowing USDC takes the base balance below zero. The borrower's
 * health counts collateral at the liquidation collateral factor (liquidatable below 1). The liquidated
 * wallet borrows 4,300 USDC on 2 WETH: at 2,400 USD per ETH that is liquidatable (4,080 of weighted
 * collateral), and `absorb` credits 2 x 2,400 x 93 % = 4,464, so it ends with a small base supply.
 */
export const COMET_PLAN: readonly WalletPlan[] = [
  { role: "compoundSupplier", purpose: "supplier", supply: { USDC: 100_000 } },
  {
    role: "lendingAll",
    purpose: "every_market",
    supply: { WETH: 5, WBTC: 0.2 },
    borrow: { symbol: "USDC", amount: 5_000 },
  },
  {
    role: "compoundBorrower",
    purpose: "borrower",
    supply: { WETH: 10 },
    borrow: { symbol: "USDC", amount: borrowForHealth({ WETH: 10 }, liquidateFactor, "USDC", TARGET_HEALTH) },
  },
  {
    role: "compoundDebtOnly",
    purpose: "debt_only",
    supply: { WBTC: 1 },
    borrow: { symbol: "USDC", amount: 15_000 },
  },
  {
    role: "compoundLiquidated",
    purpose: "liquidated",
    supply: { WETH: 2 },
    borrow: { symbol: "USDC", amount: 4_300 },
  },
];

/** The ETH price the WETH feed drops to before the liquidated wallet is absorbed (from 3,000). */
export const COMET_LIQUIDATION_ETH_USD = 2_400;
