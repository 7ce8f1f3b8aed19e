import { hexToBytes } from "viem";
import { describe, expect, it } from "vitest";
import { AmmV2Position, LiquidityNft, NftPosition, NftV4Position } from "../../../src/contracts/Positions.js";
import { entriesHolding } from "../../../src/webhooks/alerts/entriesHolding.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const POOL = address(0x99);
const POOL_ID = `0x${"ab".repeat(32)}`;
const OTHER_POOL_ID = `0x${"cd".repeat(32)}`;

const nft = (tokenId: string) =>
  LiquidityNft.make({
    tick_lower: -60,
    tick_upper: 60,
    token_id: tokenId,
    token0_holdings: 1,
    token0_rewards: 0,
    token1_holdings: 1,
    token1_rewards: 0,
    in_range: true,
    liquidity: "1",
  });
const tokens = {
  chain_id: 1,
  logo: null,
  protocol: "P",
  token0: address(1),
  token0_name: null,
  token0_symbol: null,
  token0_decimals: 18,
  token1: address(2),
  token1_name: null,
  token1_symbol: null,
  token1_decimals: 6,
};
const pair = { ...tokens, fee: 3000, tick_current: 0 };
const v3Entry = (pool: string, ...tokenIds: ReadonlyArray<string>) =>
  NftPosition.make({ type: "Nft", ...pair, pool, positions: tokenIds.map(nft) });
const v4Entry = (poolId: string, tokenId: string) =>
  NftV4Position.make({
    type: "NftV4",
    ...pair,
    pool_id: [...hexToBytes(poolId as `0x${string}`)],
    pool_manager: address(0x4f),
    salt: [...hexToBytes(`0x${BigInt(tokenId).toString(16).padStart(64, "0")}`)],
    hooks: address(0),
    positions: [nft(tokenId)],
  });
const lp = AmmV2Position.make({
  type: "AmmV2",
  ...tokens,
  pool: POOL,
  lp_balance: "0x1",
  calculated_balance: 1,
  token0_holdings: 1,
  token1_holdings: 1,
  share_of_pool: 0.1,
});

describe("entriesHolding", () => {
  it("default: the V3-design pool's entry that holds the NFT among its others", () => {
    const entry = v3Entry(POOL, "0x4", "0x5");
    expect(entriesHolding([lp, v3Entry(address(0x98), "0x5"), entry], POOL, "0x5")).toEqual([entry]);
  });

  it("behavior: a V4 NFT's own entry, its pool id given as bytes", () => {
    const entry = v4Entry(POOL_ID, "0x7");
    expect(
      entriesHolding([v4Entry(POOL_ID, "0x8"), v4Entry(OTHER_POOL_ID, "0x7"), entry], POOL_ID, "0x7"),
    ).toEqual([entry]);
  });

  it("behavior: none where the wallet no longer holds the NFT", () => {
    expect(entriesHolding([v3Entry(POOL, "0x4"), v4Entry(POOL_ID, "0x8")], POOL_ID, "0x7")).toEqual([]);
  });
});
