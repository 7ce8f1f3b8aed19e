import type { EventBase } from "./EventBase.js";

/**
 * Pendle V2 yield contract factory `CreateYieldContract(address indexed SY, uint256 indexed expiry,
 * address PT, address YT)`: an SY was split into a principal and a yield token for one expiry.
 */
export interface YieldContractCreated extends EventBase {
  readonly kind: "pendle.createYieldContract";
  readonly sy: string;
  readonly expiry: bigint;
  readonly pt: string;
  readonly yt: string;
}

/**
 * Pendle V2 market factory `CreateNewMarket(address indexed market, address indexed PT, int256
 * scalarRoot, int256 initialAnchor, uint256 lnFeeRateRoot)`: a market (whose LP token is the market
 * itself) trades `pt` against its SY.
 */
export interface YieldMarketCreated extends EventBase {
  readonly kind: "pendle.createNewMarket";
  readonly market: string;
  readonly pt: string;
}

export type YieldSplitEvent = YieldContractCreated | YieldMarketCreated;
