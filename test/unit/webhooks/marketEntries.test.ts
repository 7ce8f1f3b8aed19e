import { describe, expect, it } from "vitest";
import type { Position } from "../../../src/contracts/Positions.js";
import type { LendingMarket } from "../../../src/webhooks/alerts/lendingMarkets.js";
import { cTokensOf, marketEntries } from "../../../src/webhooks/alerts/marketEntries.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const market = (design: LendingMarket["design"], n: number): LendingMarket => ({
  address: address(n),
  design,
  protocol: "P",
  related: [],
});
const POOL = market("aave", 0xa1);
const COMPTROLLER = market("ctoken", 0xc0);
const COMET = market("comet", 0xd0);
const CTOKEN = address(0xc1);
const OTHER_CTOKEN = address(0xc2);

const ENTRIES = [
  { type: "Tokenized", token: address(0xa7), lending_pool: POOL.address },
  { type: "LendingV2", token: CTOKEN, token_type: "Supply" },
  { type: "LendingV2", token: CTOKEN, token_type: "Borrow" },
  { type: "LendingV2Fork", token: OTHER_CTOKEN, token_type: "Supply" },
  { type: "LendingV3", market: COMET.address },
  { type: "YieldSplit", market: COMET.address },
] as unknown as ReadonlyArray<Position>;
const comptrollerOf = (cToken: string) => (cToken === CTOKEN ? COMPTROLLER.address : address(0xc9));

describe("a market's entries", () => {
  it("default: an Aave pool's entries by lending_pool", () => {
    expect(marketEntries(ENTRIES, POOL, comptrollerOf)).toEqual([ENTRIES[0]]);
  });

  it("behavior: a comptroller's entries are those of its cTokens, supply and borrow", () => {
    expect(marketEntries(ENTRIES, COMPTROLLER, comptrollerOf)).toEqual([ENTRIES[1], ENTRIES[2]]);
    expect(cTokensOf(ENTRIES)).toEqual([CTOKEN, OTHER_CTOKEN]);
  });

  it("behavior: a Comet's entry by its market, not another type's market field", () => {
    expect(marketEntries(ENTRIES, COMET, comptrollerOf)).toEqual([ENTRIES[4]]);
  });
});
