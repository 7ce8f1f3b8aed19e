import type { EventBase } from "./EventBase.js";

/**
 * Aave V2/V3 configurator `ReserveInitialized(address indexed asset, address indexed aToken,
 * address stableDebtToken, address variableDebtToken, address interestRateStrategyAddress)`:
 * a reserve and the tokens that carry its supply and debt.
 */
export interface AaveReserveInitialized extends EventBase {
  readonly kind: "aave.reserveInitialized";
  readonly asset: string;
  readonly aToken: string;
  readonly stableDebtToken: string;
  readonly variableDebtToken: string;
}

/** Comptroller `MarketListed(address cToken)`: a cToken market of the comptroller. */
export interface CTokenMarketListed extends EventBase {
  readonly kind: "ctoken.marketListed";
  readonly cToken: string;
}

/** cToken `Borrow(address borrower, uint borrowAmount, uint accountBorrows, uint totalBorrows)`. */
export interface CTokenBorrow extends EventBase {
  readonly kind: "ctoken.borrow";
  readonly borrower: string;
  readonly borrowAmount: bigint;
}

/** Comet `Supply(address indexed from, address indexed dst, uint amount)` of the base asset. */
export interface CometSupply extends EventBase {
  readonly kind: "comet.supply";
  readonly from: string;
  readonly dst: string;
  readonly amount: bigint;
}

/** Comet `Withdraw(address indexed src, address indexed to, uint amount)` of the base asset (a borrow once the supply is gone). */
export interface CometWithdraw extends EventBase {
  readonly kind: "comet.withdraw";
  readonly src: string;
  readonly to: string;
  readonly amount: bigint;
}

/** Comet `SupplyCollateral(address indexed from, address indexed dst, address indexed asset, uint amount)`. */
export interface CometSupplyCollateral extends EventBase {
  readonly kind: "comet.supplyCollateral";
  readonly from: string;
  readonly dst: string;
  readonly asset: string;
  readonly amount: bigint;
}

/** Comet `WithdrawCollateral(address indexed src, address indexed to, address indexed asset, uint amount)`. */
export interface CometWithdrawCollateral extends EventBase {
  readonly kind: "comet.withdrawCollateral";
  readonly src: string;
  readonly to: string;
  readonly asset: string;
  readonly amount: bigint;
}

/** Lending protocol events the index follows. */
export type LendingEvent =
  | AaveReserveInitialized
  | CTokenMarketListed
  | CTokenBorrow
  | CometSupply
  | CometWithdraw
  | CometSupplyCollateral
  | CometWithdrawCollateral;
