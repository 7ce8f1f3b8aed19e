import { describe, expect, it } from "vitest";
import { ChainConfig, NativeAsset, ProtocolConfig } from "../../../src/chains/ChainsConfig.js";
import type { ChainBlock } from "../../../src/domain/ChainBlock.js";
import { planBlock, planRevert } from "../../../src/indexer/applyBlock.js";
import { makeIndexReader } from "../../../src/indexer/IndexReader.js";
import type { Db } from "../../../src/storage/Level.js";
import { blockHash, blockWithLogs, memoryDb } from "../../support/indexerBlocks.js";
import { encodeLog, WETH } from "../decoding/fixtures.js";

const FACTORY = "0xe044814c9ed1e6442af956a817c161192cbae98f";
const MARKET_FACTORY = "0x398e4948e373db819606a459456176d31c3b1f91";
const ROGUE = "0x0bad000000000000000000000000000000000bad";
const SY = "0x2d13826359803522cce7a4cfa2c1b582303dd0b4";
const PT = "0xb86be27b8052285468843cacba019d42d17bccc2";
const YT = "0x4add3e5faa3b3f9039675e0d434eb70eb796a9f8";
const MARKET = "0x0aa606fb7fcf3c55c116965407aab7d6911e368a";
const FAKE_PT = "0x0000000000000000000000000000000000000f7f";
const USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const EXPIRY = 1_824_163_200n;

const EVENTS = {
  created: "event CreateYieldContract(address indexed SY, uint256 indexed expiry, address PT, address YT)",
  market:
    "event CreateNewMarket(address indexed market, address indexed PT, int256 scalarRoot, int256 initialAnchor, uint256 lnFeeRateRoot)",
} as const;

const chain = ChainConfig.make({
  chain_id: 1,
  name: "ethereum",
  rpc_url: "http://127.0.0.1:1",
  tags: ["default"],
  native: NativeAsset.make({ symbol: "ETH", name: "Ether", decimals: 18 }),
  wrapped_native: WETH,
  stablecoins: [],
  tokens: [],
  quote_tokens: [],
  protocols: [
    ProtocolConfig.make({
      protocol: "PendleV2",
      kind: "pendle",
      address: FACTORY,
      market_factory: MARKET_FACTORY,
    }),
  ],
  logos: {},
  urls: {},
  traces: false,
  confirmations: 0,
  finality_depth: 4,
});

/** Applies a block; every SY's asset reads as USDC, and each asset read is recorded. */
const applyWith = (read: Array<string>) => async (db: Db, b: ChainBlock) =>
  db.batch([
    ...(await planBlock(db, chain, b, {
      metadata: async (tokens) => tokens.map(() => ({ name: null, symbol: null, decimals: 18 })),
      vaults: async (tokens) => tokens.map(() => null),
      underlying: async (contracts) =>
        contracts.map((c) => {
          read.push(`${c.kind}:${c.contract}`);
          return c.kind === "sy" ? USDC : null;
        }),
    })),
  ]);

const created = (emitter: string, pt = PT, yt = YT) =>
  encodeLog(EVENTS.created, { SY: SY, expiry: EXPIRY, PT: pt, YT: yt }, { address: emitter });
const market = (emitter: string, pt = PT) =>
  encodeLog(
    EVENTS.market,
    { market: MARKET, PT: pt, scalarRoot: 1n, initialAnchor: 1n, lnFeeRateRoot: 0n },
    { address: emitter },
  );

describe("yield-splitting tokens", () => {
  it("default: a registry factory's CreateYieldContract records PT and YT with the SY's asset, and its market factory's CreateNewMarket the LP and the PT's market", async () => {
    const db = memoryDb();
    const read: Array<string> = [];
    const apply = applyWith(read);
    await apply(db, blockWithLogs(10, [created(FACTORY)]));
    await apply(db, blockWithLogs(11, [market(MARKET_FACTORY)]));
    expect(read).toEqual([`sy:${SY}`]);
    const reader = makeIndexReader(db);
    const base = { factory: FACTORY, sy: SY, pt: PT, yt: YT, expiry: Number(EXPIRY), asset: USDC };
    expect(await reader.yieldSplitTokens(1, [PT, YT, MARKET, USDC])).toEqual([
      { role: "pt", ...base },
      { role: "yt", ...base },
      { role: "lp", ...base },
      undefined,
    ]);
    expect(await reader.yieldSplitMarkets(1, [PT])).toEqual([MARKET]);
  });

  it("error: look-alike events of other contracts, and a market of a PT the factory never created, record nothing", async () => {
    const db = memoryDb();
    const apply = applyWith([]);
    await apply(db, blockWithLogs(10, [created(ROGUE), market(ROGUE)]));
    await apply(db, blockWithLogs(11, [market(MARKET_FACTORY, FAKE_PT)]));
    const reader = makeIndexReader(db);
    expect(await reader.yieldSplitTokens(1, [PT, YT, MARKET, FAKE_PT])).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(await reader.yieldSplitMarkets(1, [FAKE_PT])).toEqual([undefined]);
  });

  it("behavior: a registry market of a PT the index never met is recorded from what the chain says of it", async () => {
    const db = memoryDb();
    const base = { factory: FACTORY, sy: SY, pt: PT, yt: YT, expiry: Number(EXPIRY), asset: USDC };
    const asked: Array<ReadonlyArray<string>> = [];
    await db.batch([
      ...(await planBlock(db, chain, blockWithLogs(11, [market(MARKET_FACTORY)]), {
        metadata: async (tokens) => tokens.map(() => ({ name: null, symbol: null, decimals: 18 })),
        vaults: async (tokens) => tokens.map(() => null),
        underlying: async (contracts) => contracts.map(() => null),
        late: {
          listedCTokens: async () => new Map(),
          yieldSplitMarkets: async (markets) => {
            asked.push(markets);
            return [
              [`idx!ys!000000000001!${PT}`, { role: "pt", ...base }],
              [`idx!ys!000000000001!${YT}`, { role: "yt", ...base }],
              [`idx!ys!000000000001!${MARKET}`, { role: "lp", ...base }],
              [`idx!ym!000000000001!${PT}`, MARKET],
            ];
          },
        },
      })),
    ]);
    expect(asked).toEqual([[MARKET]]);
    const reader = makeIndexReader(db);
    expect(await reader.yieldSplitTokens(1, [PT, YT, MARKET])).toEqual([
      { role: "pt", ...base },
      { role: "yt", ...base },
      { role: "lp", ...base },
    ]);
    expect(await reader.yieldSplitMarkets(1, [PT])).toEqual([MARKET]);
    // The block's undo removes what the late read added, as for any other record.
    await db.batch([...(await planRevert(db, 1, [{ number: 11 }], { number: 10, hash: blockHash(10) }))]);
    expect(await reader.yieldSplitTokens(1, [PT, MARKET])).toEqual([undefined, undefined]);
  });

  it("behavior: a reorg removes the tokens its block recorded", async () => {
    const db = memoryDb();
    const apply = applyWith([]);
    await apply(db, blockWithLogs(10, []));
    await apply(db, blockWithLogs(11, [created(FACTORY), market(MARKET_FACTORY)]));
    await db.batch([...(await planRevert(db, 1, [{ number: 11 }], { number: 10, hash: blockHash(10) }))]);
    const reader = makeIndexReader(db);
    expect(await reader.yieldSplitTokens(1, [PT, YT, MARKET])).toEqual([undefined, undefined, undefined]);
    expect(await reader.yieldSplitMarkets(1, [PT])).toEqual([undefined]);
  });
});
