import type { LiquidityNft } from "../contracts/Positions.js";
import { inRange, positionAmounts } from "./math/positionAmounts.js";
import { type TokenInfo, type Valuation, wholeTokens } from "./PositionPlan.js";

/** A position NFT as read at one block: its liquidity and range against its pool's price, and its fees. */
export interface NftReading {
  readonly tokenId: bigint;
  readonly tickLower: number;
  readonly tickUpper: number;
  readonly liquidity: bigint;
  readonly sqrtPriceX96: bigint;
  readonly tickCurrent: number;
  /** Uncollected fees in raw units: stored `tokensOwed` plus fees earned since the last checkpoint. */
  readonly fees0: bigint;
  readonly fees1: bigint;
}

/**
 * Whether an NFT is still a position worth showing. A burned NFT is gone from the index; one whose
 * liquidity was all removed is shown while it still has fees to collect (as peers do) and hidden
 * once they are collected too.
 */
export const isOpen = (reading: NftReading): boolean =>
  reading.liquidity > 0n || reading.fees0 > 0n || reading.fees1 > 0n;

/** The `positions[]` element of an NFT, and its USD value (undefined when a token has no price). */
export const liquidityNft = (
  reading: NftReading,
  token0: TokenInfo,
  token1: TokenInfo,
  valuation: Valuation,
): { readonly element: LiquidityNft; readonly usd: number | undefined } => {
  const { amount0, amount1 } = positionAmounts({
    sqrtPriceX96: reading.sqrtPriceX96,
    tickCurrent: reading.tickCurrent,
    tickLower: reading.tickLower,
    tickUpper: reading.tickUpper,
    liquidity: reading.liquidity,
  });
  const holdings0 = wholeTokens(amount0, token0.decimals);
  const holdings1 = wholeTokens(amount1, token1.decimals);
  const rewards0 = wholeTokens(reading.fees0, token0.decimals);
  const rewards1 = wholeTokens(reading.fees1, token1.decimals);
  const price0 = valuation.price(token0.address)?.priceUsd;
  const price1 = valuation.price(token1.address)?.priceUsd;
  const usd =
    price0 === undefined || price1 === undefined
      ? undefined
      : (holdings0 + rewards0) * price0 + (holdings1 + rewards1) * price1;
  return {
    element: {
      tick_lower: reading.tickLower,
      tick_upper: reading.tickUpper,
      token_id: `0x${reading.tokenId.toString(16)}`,
      ...(price0 === undefined ? {} : { token0_price: price0 }),
      token0_holdings: holdings0,
      token0_rewards: rewards0,
      ...(price1 === undefined ? {} : { token1_price: price1 }),
      token1_holdings: holdings1,
      token1_rewards: rewards1,
      in_range: inRange(reading),
      liquidity: reading.liquidity.toString(),
    },
    usd,
  };
};

/** The pair fields of Nft and NftV4 entries. */
export const pairFields = (token0: TokenInfo, token1: TokenInfo) => ({
  token0: token0.address,
  token0_name: token0.name,
  token0_symbol: token0.symbol,
  token0_decimals: token0.decimals ?? 0,
  token1: token1.address,
  token1_name: token1.name,
  token1_symbol: token1.symbol,
  token1_decimals: token1.decimals ?? 0,
});

/** The sum of the values, or undefined as soon as one is unknown. */
export const sumKnown = (values: ReadonlyArray<number | undefined>): number | undefined =>
  values.some((v) => v === undefined) ? undefined : values.reduce<number>((a, b) => a + (b ?? 0), 0);
