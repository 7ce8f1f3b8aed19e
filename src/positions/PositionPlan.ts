import type { ChainConfig } from "../chains/ChainsConfig.js";
import type { RawCall, RawResult } from "../chains/multicall3.js";
import type { Position } from "../contracts/Positions.js";
import type { PriceQuote } from "../pricing/selectPrices.js";
import type { HeldNft } from "./discoverPositions.js";

/** A token as positions show it. */
export interface TokenInfo {
  readonly address: string;
  readonly name: string | null;
  readonly symbol: string | null;
  /** null when the token does not say: its amounts cannot be shown in whole tokens. */
  readonly decimals: number | null;
}

/** What shaping needs besides the reads: prices, token metadata and logo links, all at the read's block. */
export interface Valuation {
  readonly chain: ChainConfig;
  /** The USD quote of a token (the zero address is the native currency, priced as wrapped native). */
  readonly price: (token: string) => PriceQuote | undefined;
  readonly token: (token: string) => TokenInfo;
  readonly logo: (token: string) => string;
}

/**
 * One position type's part of a chain's read: the calls it adds to the chain's single
 * multicall, the tokens it needs priced and described, and how the results become positions.
 * Every type of spec 2.3 is one plan; a chain's plans share one `aggregate3` with pricing.
 */
export interface PositionPlan {
  readonly calls: ReadonlyArray<RawCall>;
  /** Tokens to price in the same multicall. */
  readonly priced: ReadonlyArray<string>;
  /** Tokens whose name, symbol and decimals the positions show. */
  readonly described: ReadonlyArray<string>;
  /** `results` are this plan's own, in the order of `calls`. */
  readonly finish: (results: ReadonlyArray<RawResult>, valuation: Valuation) => ReadonlyArray<Position>;
  /**
   * The position NFTs the index records for the wallet that `results` show owned by another
   * address: stale records (DisownedNfts), left out of the positions and reported for deletion.
   */
  readonly disowned?: (results: ReadonlyArray<RawResult>) => ReadonlyArray<HeldNft>;
}

/** A plan that reads nothing and finds nothing. */
export const EMPTY_PLAN: PositionPlan = { calls: [], priced: [], described: [], finish: () => [] };

/** Whole tokens from a raw amount, or 0 when decimals are unknown. */
export const wholeTokens = (amount: bigint, decimals: number | null): number =>
  decimals === null ? 0 : Number(amount) / 10 ** decimals;
