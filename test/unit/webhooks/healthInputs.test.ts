import { toEventSelector } from "viem";
import { describe, expect, it } from "vitest";
import { ProtocolConfig } from "../../../src/chains/ChainsConfig.js";
import type { LendingToken } from "../../../src/indexer/IndexRecords.js";
import { movedMarkets } from "../../../src/webhooks/alerts/healthInputs.js";
import { lendingMarketsOf } from "../../../src/webhooks/alerts/lendingMarkets.js";
import { alertBlock, answerUpdated, logOf, word } from "../../support/alertBlocks.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const POOL = address(0xa1);
const CONFIGURATOR = address(0xa2);
const COMPTROLLER = address(0xc0);
const CTOKEN = address(0xc1);
const COMET = address(0xd0);
const ELSEWHERE = address(0xee);
const TOPIC0 = `0x${"e".repeat(64)}`;

const markets = lendingMarketsOf(
  testChainConfig({
    protocols: [
      ProtocolConfig.make({ protocol: "AaveV3", kind: "aave_v3", address: POOL, configurator: CONFIGURATOR }),
      ProtocolConfig.make({ protocol: "CompoundV2", kind: "ctoken", address: COMPTROLLER }),
      ProtocolConfig.make({ protocol: "CompoundV3", kind: "comet", address: COMET }),
      ProtocolConfig.make({ protocol: "UniswapV2", kind: "v2", address: address(0xf0) }),
    ],
  }),
);

/** The index's records: CTOKEN is a cToken of COMPTROLLER; the lookups are counted. */
const index = () => {
  const asked: Array<string> = [];
  const lookup = async (addresses: ReadonlyArray<string>) => {
    asked.push(...addresses);
    return addresses.map((a): LendingToken | undefined =>
      a === CTOKEN ? { kind: "ctoken", market: COMPTROLLER, side: "supply", asset: address(1) } : undefined,
    );
  };
  return { asked, lookup };
};

describe("markets a block moved", () => {
  it("default: the lending markets of the registry, with an Aave pool's configurator", () => {
    expect(markets.map((m) => [m.address, m.design, m.protocol, m.related])).toEqual([
      [POOL, "aave", "AaveV3", [CONFIGURATOR]],
      [COMPTROLLER, "ctoken", "CompoundV2", []],
      [COMET, "comet", "CompoundV3", []],
    ]);
  });

  it("behavior: a price event moves every market, the index not asked", async () => {
    const { asked, lookup } = index();
    expect(await movedMarkets(alertBlock(1, { logs: [answerUpdated(ELSEWHERE)] }), markets, lookup)).toBe(
      "all",
    );
    expect(asked).toEqual([]);
  });

  it("behavior: a comptroller oracle's PricePosted is a price event", async () => {
    const pricePosted = toEventSelector(
      "event PricePosted(address asset, uint256 previousPriceMantissa, uint256 requestedPriceMantissa, uint256 newPriceMantissa)",
    );
    const log = logOf(
      ELSEWHERE,
      [pricePosted],
      [word(address(1)), word(address(2)), word(address(3)), word(address(4))],
    );
    expect(await movedMarkets(alertBlock(1, { logs: [log] }), markets, index().lookup)).toBe("all");
  });

  it("behavior: a log of a pool's configurator, of a Comet, of a cToken moves their market only", async () => {
    const { asked, lookup } = index();
    const at = (logs: ReadonlyArray<ReturnType<typeof logOf>>) =>
      movedMarkets(alertBlock(1, { logs }), markets, lookup);
    expect(await at([logOf(CONFIGURATOR, [TOPIC0])])).toEqual(new Set([POOL]));
    expect(await at([logOf(COMET, [TOPIC0])])).toEqual(new Set([COMET]));
    expect(await at([logOf(CTOKEN, [TOPIC0]), logOf(ELSEWHERE, [TOPIC0])])).toEqual(new Set([COMPTROLLER]));
    expect(asked.sort()).toEqual([CTOKEN, ELSEWHERE]);
  });

  it("behavior: logs of other contracts move nothing", async () => {
    expect(
      await movedMarkets(alertBlock(1, { logs: [logOf(ELSEWHERE, [TOPIC0])] }), markets, index().lookup),
    ).toEqual(new Set());
  });
});
