import { describe, expect, it } from "vitest";
import { ProtocolConfig } from "../../../src/chains/ChainsConfig.js";
import type { Position } from "../../../src/contracts/Positions.js";
import { alertScope, passesPositionFilters } from "../../../src/webhooks/alerts/alertFilters.js";
import { positionKey, positionProtocol } from "../../../src/webhooks/alerts/positionIdentity.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const AAVE = address(0xa1);
const COMPTROLLER = address(0xc0);
const FORK_COMPTROLLER = address(0xc2);
const V3_FACTORY = address(0xf3);
const V3_MANAGER = address(0xf4);

const chain = testChainConfig({
  protocols: [
    ProtocolConfig.make({ protocol: "AaveV3", kind: "aave_v3", address: AAVE }),
    ProtocolConfig.make({ protocol: "CompoundV2", kind: "ctoken", address: COMPTROLLER }),
    ProtocolConfig.make({ protocol: "ForkLend", kind: "ctoken", address: FORK_COMPTROLLER, fork: true }),
    ProtocolConfig.make({
      protocol: "UniswapV3",
      kind: "v3",
      address: V3_FACTORY,
      position_manager: V3_MANAGER,
    }),
  ],
});
const position = (fields: Record<string, unknown>) => fields as unknown as Position;
const filters = (position_types: ReadonlyArray<string> | null, protocols: ReadonlyArray<string> | null) =>
  ({ position_types, protocols }) as Parameters<typeof passesPositionFilters>[0];

describe("a position's identity", () => {
  it("default: the type and the contract holding it, as the positions endpoint shows them", () => {
    expect(positionKey(position({ type: "AmmV2", pool: address(1), token0: address(2) }))).toBe(
      `AmmV2:${address(1)}`,
    );
    expect(positionKey(position({ type: "Nft", pool: address(3), positions: [] }))).toBe(`Nft:${address(3)}`);
    expect(positionKey(position({ type: "LendingV3", market: address(4), base_token: address(5) }))).toBe(
      `LendingV3:${address(4)}`,
    );
    for (const type of ["Tokenized", "Erc4626", "YieldSplit", "RestakeStrategy"])
      expect(positionKey(position({ type, token: address(6) }))).toBe(`${type}:${address(6)}`);
  });

  it("behavior: each V4 NFT is its own position (PoolManager and salt); supply and debt of one reserve are two", () => {
    const salt = (n: number) => [...Array.from({ length: 31 }, () => 0), n];
    const v4 = (n: number) => position({ type: "NftV4", pool_manager: address(7), salt: salt(n) });
    expect(positionKey(v4(5))).toBe(`NftV4:${address(7)}:0x${"00".repeat(31)}05`);
    expect(positionKey(v4(5))).not.toBe(positionKey(v4(6)));
    const supply = position({ type: "Tokenized", token: address(8), underlying_token: address(9) });
    const debt = position({ type: "Tokenized", token: address(10), underlying_token: address(9) });
    expect(positionKey(supply)).not.toBe(positionKey(debt));
  });

  it("behavior: a cToken market's supply and borrow of one token are two positions", () => {
    for (const type of ["LendingV2", "LendingV2Fork"]) {
      const supply = position({ type, token: address(6), token_type: "Supply", usd_value: 1000 });
      const borrow = position({ type, token: address(6), token_type: "Borrow", usd_value: -500 });
      expect(positionKey(supply)).toBe(`${type}:${address(6)}:Supply`);
      expect(positionKey(borrow)).toBe(`${type}:${address(6)}:Borrow`);
    }
  });

  it("behavior: the protocol is the entry's own, an Aave token's pool's registry name, none for a vault", () => {
    expect(positionProtocol(chain, position({ type: "AmmV2", protocol: "SushiSwapV2" }))).toBe("SushiSwapV2");
    expect(positionProtocol(chain, position({ type: "Tokenized", lending_pool: AAVE }))).toBe("AaveV3");
    expect(
      positionProtocol(chain, position({ type: "Tokenized", lending_pool: address(0xdead) })),
    ).toBeNull();
    expect(positionProtocol(chain, position({ type: "Erc4626", token: address(11) }))).toBeNull();
  });
});

describe("position filters", () => {
  it("default: unset filters let every alert through, an unknown type or protocol included", () => {
    expect(passesPositionFilters(filters(null, null), { type: null, protocol: null })).toBe(true);
  });

  it("behavior: each set filter must name the alert's type or protocol; protocols in any case", () => {
    const scope = { type: "Tokenized", protocol: "AaveV3" } as const;
    expect(passesPositionFilters(filters(["Tokenized", "Nft"], null), scope)).toBe(true);
    expect(passesPositionFilters(filters(["Nft"], null), scope)).toBe(false);
    expect(passesPositionFilters(filters(null, ["aavev3"]), scope)).toBe(true);
    expect(passesPositionFilters(filters(null, ["AaveV2"]), scope)).toBe(false);
    expect(passesPositionFilters(filters(["Tokenized"], ["CompoundV2"]), scope)).toBe(false);
    // A vault names no protocol: a protocols filter keeps it out.
    expect(passesPositionFilters(filters(null, ["AaveV3"]), { type: "Erc4626", protocol: null })).toBe(false);
  });

  it("behavior: an alert of another condition is of the type its registry deployment's positions are shown as", () => {
    expect(alertScope(chain, { protocol: "AaveV3", lending_pool: AAVE })).toEqual({
      type: "Tokenized",
      protocol: "AaveV3",
    });
    // A cToken liquidation names the cToken, not the comptroller: the deployment's name decides.
    expect(alertScope(chain, { protocol: "ForkLend", lending_pool: address(0xc7) })).toEqual({
      type: "LendingV2Fork",
      protocol: "ForkLend",
    });
    expect(alertScope(chain, { protocol: "CompoundV2", lending_pool: COMPTROLLER }).type).toBe("LendingV2");
    expect(alertScope(chain, { protocol: "UniswapV3", position_manager: V3_MANAGER }).type).toBe("Nft");
    expect(alertScope(chain, { protocol: "Unknown" })).toEqual({ type: null, protocol: "Unknown" });
    expect(alertScope(chain, { protocol: null, position_type: "Erc4626" })).toEqual({
      type: "Erc4626",
      protocol: null,
    });
  });
});
