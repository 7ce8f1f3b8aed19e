import { type ChainConfig, protocolsOf } from "../../chains/ChainsConfig.js";

/** How a market answers an account's health factor (healthCalls.ts). */
export type HealthDesign = "aave" | "ctoken" | "comet";

/** A market of the chain's registry whose accounts the positions endpoint gives a health factor. */
export interface LendingMarket {
  /** The registry address: the Aave pool, the cToken comptroller or the Comet. Alerts name it `lending_pool`. */
  readonly address: string;
  readonly design: HealthDesign;
  /** The registry's name for it, reported as the alert's `protocol`. */
  readonly protocol: string;
  /**
   * Contracts other than the market whose every log moves its accounts: an Aave pool's configurator
   * (collateral factors, liquidation thresholds). A cToken's logs count for its comptroller too, but
   * cTokens are not in the registry (healthInputs.ts finds them).
   */
  readonly related: ReadonlyArray<string>;
}

/**
 * Every Aave V2 and V3 pool, cToken comptroller and Comet market of the chain's registry: the
 * markets `health_factor_below` watches, in registry order.
 */
export const lendingMarketsOf = (chain: ChainConfig): ReadonlyArray<LendingMarket> =>
  protocolsOf(chain).flatMap((p): ReadonlyArray<LendingMarket> => {
    const base = { address: p.address, protocol: p.protocol };
    switch (p.kind) {
      case "aave_v2":
      case "aave_v3":
        return [{ ...base, design: "aave", related: p.configurator === undefined ? [] : [p.configurator] }];
      case "ctoken":
        return [{ ...base, design: "ctoken", related: [] }];
      case "comet":
        return [{ ...base, design: "comet", related: [] }];
      default:
        return [];
    }
  });

/** A key of the market list: known debts kept over one list (knownDebts.ts) are not used over another. */
export const marketsKey = (markets: ReadonlyArray<LendingMarket>): string =>
  markets.map((m) => m.address).join(",");
