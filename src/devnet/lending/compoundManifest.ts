import type { Address } from "viem";
import type { ManifestLendingMarket } from "../DevnetManifest.js";
import {
  COMET_BASE,
  COMET_COLLATERAL,
  type CometCollateral,
  type CometDeployment,
} from "./comet/deployComet.js";
import type { CTokenDeployment } from "./ctoken/deployCTokenMarket.js";
import type { LendingSymbol } from "./openingPrices.js";

type Tokens = Readonly<Record<LendingSymbol, Address>>;

/** A cToken deployment in the manifest: registered by its comptroller, one cToken per asset. */
export const ctokenMarket = (deployment: CTokenDeployment, tokens: Tokens): ManifestLendingMarket => ({
  kind: "ctoken",
  protocol: deployment.brand.protocol,
  address: deployment.comptroller,
  contracts: {
    comptroller: deployment.comptroller,
    comptroller_implementation: deployment.comptrollerImplementation,
    comptroller_lens: deployment.comptrollerLens,
    access_control: deployment.accessControl,
    oracle: deployment.oracle,
    rate_model: deployment.rateModel,
  },
  assets: (Object.entries(deployment.markets) as [LendingSymbol, Address][]).map(([symbol, cToken]) => ({
    symbol,
    asset: tokens[symbol],
    supply_token: cToken,
    debt_token: null,
  })),
});

/** A Comet market in the manifest: the base asset first, then the collateral assets; feeds by asset. */
export const cometMarket = (deployment: CometDeployment, tokens: Tokens): ManifestLendingMarket => ({
  kind: "comet",
  protocol: deployment.protocol,
  address: deployment.comet,
  contracts: Object.fromEntries(
    Object.entries(deployment.priceFeeds).map(([symbol, feed]) => [
      `price_feed_${symbol.toLowerCase()}`,
      feed,
    ]),
  ),
  assets: [
    { symbol: COMET_BASE, asset: tokens[COMET_BASE], supply_token: null, debt_token: null, role: "base" },
    ...(Object.keys(COMET_COLLATERAL) as CometCollateral[]).map((symbol) => ({
      symbol,
      asset: tokens[symbol],
      supply_token: null,
      debt_token: null,
      role: "collateral" as const,
    })),
  ],
});
