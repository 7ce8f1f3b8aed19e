import type { ManifestLendingPosition } from "../DevnetManifest.js";
import type { WalletRole } from "../devAccounts.js";
import { type LendingSymbol, openingPriceUsd } from "./openingPrices.js";

/** The wallets of the cToken and Comet markets: the shared `lendingAll`, the four `compound*` roles and `everyType`. */
export type CompoundRole =
  | "lendingAll"
  | "compoundSupplier"
  | "compoundBorrower"
  | "compoundDebtOnly"
  | "compoundLiquidated"
  | "everyType";

/** What one wallet does in one market: supply (cToken mint, Comet base supply or collateral), then borrow. */
export interface WalletPlan {
  readonly role: CompoundRole & WalletRole;
  readonly purpose: ManifestLendingPosition["purpose"];
  /** Whole tokens supplied, in this order. */
  readonly supply: Partial<Record<LendingSymbol, number>>;
  /** Whole tokens borrowed once everything is supplied. */
  readonly borrow?: { readonly symbol: LendingSymbol; readonly amount: number };
}

/** The health the `borrower` wallets are seeded at: weighted collateral value over debt value. */
export const TARGET_HEALTH = 1.2;

/**
 * How much of `symbol` a wallet borrows so that its collateral, valued at the opening prices and weighted
 * by `factor`, covers the debt `health` times.
 */
export const borrowForHealth = (
  collateral: Partial<Record<LendingSymbol, number>>,
  factor: (symbol: LendingSymbol) => number,
  symbol: LendingSymbol,
  health: number,
): number => {
  const weighted = (Object.entries(collateral) as [LendingSymbol, number][]).reduce(
    (sum, [asset, amount]) => sum + amount * openingPriceUsd(asset) * factor(asset),
    0,
  );
  return Math.floor(weighted / health / openingPriceUsd(symbol));
};

/** Whole tokens each role needs across plans (for funding it before seeding). */
export const plannedSupply = (
  plans: readonly (readonly WalletPlan[])[],
): Map<CompoundRole, Partial<Record<LendingSymbol, number>>> => {
  const needs = new Map<CompoundRole, Partial<Record<LendingSymbol, number>>>();
  for (const plan of plans.flat()) {
    const need = needs.get(plan.role) ?? {};
    for (const [symbol, amount] of Object.entries(plan.supply) as [LendingSymbol, number][])
      need[symbol] = (need[symbol] ?? 0) + amount;
    needs.set(plan.role, need);
  }
  return needs;
};
