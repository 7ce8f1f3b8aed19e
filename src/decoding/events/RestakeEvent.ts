import type { EventBase } from "./EventBase.js";

/**
 * StrategyManager `Deposit(address staker, IERC20 token, IStrategy strategy, uint256 shares)` of the
 * EigenLayer design (M2 interface, no indexed fields): a staker's shares in a strategy grew.
 */
export interface RestakeDeposit extends EventBase {
  readonly kind: "restake.deposit";
  readonly staker: string;
  readonly token: string;
  readonly strategy: string;
  readonly shares: bigint;
}

export type RestakeEvent = RestakeDeposit;
