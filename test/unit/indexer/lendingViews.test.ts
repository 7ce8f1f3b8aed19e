import { describe, expect, it } from "vitest";
import { ChainConfig, NativeAsset, ProtocolConfig } from "../../../src/chains/ChainsConfig.js";
import type { ChainBlock } from "../../../src/domain/ChainBlock.js";
import { planBlock, planRevert } from "../../../src/indexer/applyBlock.js";
import { makeIndexReader } from "../../../src/indexer/IndexReader.js";
import type { Db } from "../../../src/storage/Level.js";
import { blockHash, blockWithLogs, memoryDb } from "../../support/indexerBlocks.js";
import { ALICE, BOB, encodeLog, WETH } from "../decoding/fixtures.js";

const POOL = "0x7d2768de32b0b80b7a3454c06bdac94a69ddc7a9";
const CONFIGURATOR = "0x311bb771e4f8952e6da169b425e7e92d6ac45756";
const COMPTROLLER = "0x3d9819210a31b4961b30ef54be2aed79b9c9cd3b";
const COMET = "0xc3d688b66703497daa19211eedff47f25384cdc3";
const ROGUE = "0x0bad000000000000000000000000000000000bad";
const USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const A_USDC = "0xbcca60bb61934080951369a648fb03df4f96263c";
const DEBT_USDC = "0x619beb58998ed2278e08620f97007e1116d5d25b";
const C_USDC = "0x39aa39c021dfbae8fac545936693ac917d5e7563";
const C_ETH = "0x4ddc2d193948926d02f9b1fe9e1daa0718270ed5";
const ZERO = "0x0000000000000000000000000000000000000000";

const EVENTS = {
  reserveInitialized:
    "event ReserveInitialized(address indexed asset, address indexed aToken, address stableDebtToken, address variableDebtToken, address interestRateStrategyAddress)",
  marketListed: "event MarketListed(address cToken)",
  borrow:
    "event Borrow(address borrower, uint256 borrowAmount, uint256 accountBorrows, uint256 totalBorrows)",
  supply: "event Supply(address indexed from, address indexed dst, uint256 amount)",
  withdraw: "event Withdraw(address indexed src, address indexed to, uint256 amount)",
  supplyCollateral:
    "event SupplyCollateral(address indexed from, address indexed dst, address indexed asset, uint256 amount)",
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
    ProtocolConfig.make({ protocol: "AaveV2", kind: "aave_v2", address: POOL, configurator: CONFIGURATOR }),
    ProtocolConfig.make({ protocol: "CompoundV2", kind: "ctoken", address: COMPTROLLER }),
    ProtocolConfig.make({ protocol: "CompoundV3", kind: "comet", address: COMET }),
  ],
  logos: {},
  urls: {},
  traces: false,
  confirmations: 0,
  finality_depth: 4,
});

const underlyingOf = new Map([[C_USDC, USDC]]);
const apply = async (db: Db, b: ChainBlock) =>
  db.batch([
    ...(await planBlock(db, chain, b, {
      metadata: async (tokens) => tokens.map(() => ({ name: null, symbol: null, decimals: 18 })),
      vaults: async (tokens) => tokens.map(() => null),
      underlying: async (contracts) =>
        contracts.map(({ contract, kind }) =>
          kind === "comet" ? USDC : (underlyingOf.get(contract) ?? null),
        ),
    })),
  ]);

const reserve = (emitter: string) =>
  encodeLog(
    EVENTS.reserveInitialized,
    {
      asset: USDC,
      aToken: A_USDC,
      stableDebtToken: ROGUE,
      variableDebtToken: DEBT_USDC,
      interestRateStrategyAddress: ROGUE,
    },
    { address: emitter },
  );

describe("lending views", () => {
  it("default: a registry configurator's reserve names its supply and debt tokens; a comptroller's market its cToken and underlying", async () => {
    const db = memoryDb();
    await apply(
      db,
      blockWithLogs(10, [
        reserve(CONFIGURATOR),
        encodeLog(EVENTS.marketListed, { cToken: C_USDC }, { address: COMPTROLLER }),
        encodeLog(EVENTS.marketListed, { cToken: C_ETH }, { address: COMPTROLLER }),
      ]),
    );
    expect(await makeIndexReader(db).lendingTokens(1, [A_USDC, DEBT_USDC, C_USDC, C_ETH, USDC])).toEqual([
      { kind: "aave_v2", market: POOL, side: "supply", asset: USDC },
      { kind: "aave_v2", market: POOL, side: "debt", asset: USDC },
      { kind: "ctoken", market: COMPTROLLER, side: "supply", asset: USDC },
      {
        kind: "ctoken",
        market: COMPTROLLER,
        side: "supply",
        asset: "0x0000000000000000000000000000000000000000",
      },
      undefined,
    ]);
  });

  it("behavior: the same events from contracts outside the registry are ignored", async () => {
    const db = memoryDb();
    await apply(
      db,
      blockWithLogs(10, [
        reserve(ROGUE),
        encodeLog(EVENTS.marketListed, { cToken: C_USDC }, { address: ROGUE }),
      ]),
    );
    expect(await makeIndexReader(db).lendingTokens(1, [A_USDC, C_USDC])).toEqual([undefined, undefined]);
  });

  it("behavior: cToken borrowers and Comet users are in the market, with Comet collateral by asset", async () => {
    const db = memoryDb();
    await apply(
      db,
      blockWithLogs(10, [encodeLog(EVENTS.marketListed, { cToken: C_USDC }, { address: COMPTROLLER })]),
    );
    await apply(
      db,
      blockWithLogs(11, [
        encodeLog(
          EVENTS.borrow,
          { borrower: ALICE, borrowAmount: 5n, accountBorrows: 5n, totalBorrows: 5n },
          { address: C_USDC },
        ),
        encodeLog(
          EVENTS.borrow,
          { borrower: BOB, borrowAmount: 5n, accountBorrows: 5n, totalBorrows: 5n },
          { address: ROGUE },
        ),
        encodeLog(
          EVENTS.supplyCollateral,
          { from: BOB, dst: ALICE, asset: WETH, amount: 1n },
          { address: COMET },
        ),
        encodeLog(EVENTS.withdraw, { src: ALICE, to: ALICE, amount: 1n }, { address: COMET }),
        encodeLog(EVENTS.supply, { from: BOB, dst: BOB, amount: 1n }, { address: ROGUE }),
      ]),
    );
    const reader = makeIndexReader(db);
    expect(await reader.lendingMarkets(ALICE)).toEqual([
      { chain_id: 1, market: C_USDC, asset: undefined },
      { chain_id: 1, market: COMET, asset: undefined },
      { chain_id: 1, market: COMET, asset: WETH },
    ]);
    expect(await reader.lendingMarkets(BOB)).toEqual([]);
    expect(await reader.lendingTokens(1, [COMET])).toEqual([
      { kind: "comet", market: COMET, side: "supply", asset: USDC },
    ]);
  });

  it("behavior: a borrow from a market the index never met counts when the chain says a registry comptroller lists it; the chain is asked only about unmet markets", async () => {
    const db = memoryDb();
    await apply(
      db,
      blockWithLogs(10, [encodeLog(EVENTS.marketListed, { cToken: C_USDC }, { address: COMPTROLLER })]),
    );
    const asked: Array<ReadonlyArray<string>> = [];
    const borrowFrom = (cToken: string, borrower: string) =>
      encodeLog(
        EVENTS.borrow,
        { borrower, borrowAmount: 5n, accountBorrows: 5n, totalBorrows: 5n },
        { address: cToken },
      );
    await db.batch([
      ...(await planBlock(
        db,
        chain,
        blockWithLogs(11, [borrowFrom(C_USDC, ALICE), borrowFrom(C_ETH, ALICE), borrowFrom(ROGUE, BOB)]),
        {
          metadata: async (tokens) => tokens.map(() => ({ name: null, symbol: null, decimals: 18 })),
          vaults: async (tokens) => tokens.map(() => null),
          underlying: async (contracts) => contracts.map(() => null),
          late: {
            listedCTokens: async (cTokens) => {
              asked.push(cTokens);
              return new Map([[C_ETH, { kind: "ctoken", market: COMPTROLLER, side: "supply", asset: ZERO }]]);
            },
            yieldSplitMarkets: async () => [],
          },
        },
      )),
    ]);
    expect(asked).toEqual([[C_ETH, ROGUE]]);
    const reader = makeIndexReader(db);
    expect(await reader.lendingMarkets(ALICE)).toEqual(
      [
        { chain_id: 1, market: C_USDC, asset: undefined },
        { chain_id: 1, market: C_ETH, asset: undefined },
      ].sort((a, b) => a.market.localeCompare(b.market)),
    );
    expect(await reader.lendingMarkets(BOB)).toEqual([]);
    expect(await reader.lendingTokens(1, [C_ETH, ROGUE])).toEqual([
      { kind: "ctoken", market: COMPTROLLER, side: "supply", asset: ZERO },
      undefined,
    ]);
  });

  it("behavior: a reorg removes what the reorganised blocks added", async () => {
    const db = memoryDb();
    await apply(db, blockWithLogs(10, [reserve(CONFIGURATOR)]));
    await apply(
      db,
      blockWithLogs(11, [
        encodeLog(EVENTS.supply, { from: ALICE, dst: ALICE, amount: 1n }, { address: COMET }),
      ]),
    );
    await db.batch([...(await planRevert(db, 1, [{ number: 11 }], { number: 10, hash: blockHash(10) }))]);
    const reader = makeIndexReader(db);
    expect(await reader.lendingMarkets(ALICE)).toEqual([]);
    expect((await reader.lendingTokens(1, [A_USDC]))[0]).toBeDefined();
  });
});
