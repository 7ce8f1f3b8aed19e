import { MemoryLevel } from "memory-level";
import { describe, expect, it } from "vitest";
import { ChainConfig, NativeAsset, ProtocolConfig } from "../../../src/chains/ChainsConfig.js";
import type { LogLike } from "../../../src/decoding/index.js";
import { BLOCK_MESSAGE_VERSION, ChainBlock, ChainLog } from "../../../src/domain/ChainBlock.js";
import { planBlock, planRevert } from "../../../src/indexer/applyBlock.js";
import { makeIndexReader } from "../../../src/indexer/IndexReader.js";
import type { Db } from "../../../src/storage/Level.js";
import { ALICE, BOB, CAROL, EVENTS, encodeLog, POOL, WETH, ZERO } from "../decoding/fixtures.js";

const V3_FACTORY = "0x1f98431c8ad98523631ae4a59f267346ea31f984";
const V3_MANAGER = "0xc36442b4a4522e871399cd717abdd847ab11fe88";
const V4_POOL_MANAGER = "0x000000000004444c5dc75cb358380d2e3de08a90";
const V4_MANAGER = "0xbd216513d74c8cf14cf4747e6aaa6420ff64ee9e";
const ROGUE = "0x0bad000000000000000000000000000000000bad";
const POOL_ID = `0x${"ab".repeat(32)}`;

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
      protocol: "UniswapV3",
      kind: "v3",
      address: V3_FACTORY,
      position_manager: V3_MANAGER,
    }),
    ProtocolConfig.make({
      protocol: "UniswapV4",
      kind: "v4",
      address: V4_POOL_MANAGER,
      position_manager: V4_MANAGER,
    }),
  ],
  logos: {},
  urls: {},
  traces: false,
  confirmations: 0,
  finality_depth: 4,
});

const hash = (n: number, branch = "a") => `0x${branch.repeat(2)}${n.toString(16).padStart(62, "0")}`;
const txHash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

const block = (number: number, logs: ReadonlyArray<LogLike>) =>
  ChainBlock.make({
    version: BLOCK_MESSAGE_VERSION,
    chain_id: 1,
    number,
    hash: hash(number),
    parent_hash: hash(number - 1),
    timestamp: 1_700_000_000 + number * 12,
    source: "live",
    transactions: [],
    logs: logs.map((log) => ChainLog.make(log as ConstructorParameters<typeof ChainLog>[0])),
    internal_transfers: null,
  });

const nftTransfer = (manager: string, from: string, to: string, tokenId: bigint, logIndex: number, tx = 1) =>
  encodeLog(EVENTS.erc721Transfer, { from, to, tokenId }, { address: manager, logIndex, txHash: txHash(tx) });

/** A V3 NonfungiblePositionManager mint: the pool mints in the manager's name, then the NFT is minted. */
const v3Mint = (to: string, tokenId: bigint, tx: number, pool = POOL) => [
  encodeLog(
    EVENTS.v3Mint,
    {
      sender: V3_MANAGER,
      owner: V3_MANAGER,
      tickLower: -600,
      tickUpper: 600,
      amount: 10n,
      amount0: 1n,
      amount1: 1n,
    },
    { address: pool, logIndex: tx * 10, txHash: txHash(tx) },
  ),
  nftTransfer(V3_MANAGER, ZERO, to, tokenId, tx * 10 + 1, tx),
];

/** A V4 PositionManager mint: the NFT, then the pool manager's ModifyLiquidity salted with the token id. */
const v4Mint = (to: string, tokenId: bigint, tx: number) => [
  nftTransfer(V4_MANAGER, ZERO, to, tokenId, tx * 10, tx),
  encodeLog(
    EVENTS.v4ModifyLiquidity,
    {
      id: POOL_ID,
      sender: V4_MANAGER,
      tickLower: -120,
      tickUpper: 60,
      liquidityDelta: 5n,
      salt: `0x${tokenId.toString(16).padStart(64, "0")}`,
    },
    { address: V4_POOL_MANAGER, logIndex: tx * 10 + 1, txHash: txHash(tx) },
  ),
];

const newDb = () => new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
const apply = async (db: Db, b: ChainBlock) =>
  db.batch([
    ...(await planBlock(db, chain, b, {
      metadata: async (tokens) => tokens.map(() => ({ name: null, symbol: null, decimals: 18 })),
      vaults: async (tokens) => tokens.map(() => null),
      underlying: async (contracts) => contracts.map(() => null),
    })),
  ]);
const everHeld = async (db: Db, wallet: string) =>
  (await makeIndexReader(db).positionNftsEverHeld(wallet)).map((n) => ({
    token_id: n.token_id,
    block: n.block,
  }));
const held = async (db: Db, wallet: string) =>
  (await makeIndexReader(db).positionNfts(wallet)).map((n) => ({
    manager: n.manager,
    token_id: n.token_id,
    pool: n.minted?.pool,
    ticks: n.minted === undefined ? undefined : [n.minted.tick_lower, n.minted.tick_upper],
  }));

describe("position NFT views", () => {
  it("default: a mint records the holder, and the pool and range the NFT was minted in (V3 and V4)", async () => {
    const db = newDb();
    await apply(db, block(10, [...v3Mint(ALICE, 7n, 1), ...v4Mint(ALICE, 3n, 2)]));
    // Ascending by chain, manager address and token id.
    expect(await held(db, ALICE)).toEqual([
      { manager: V4_MANAGER, token_id: 3n, pool: POOL_ID, ticks: [-120, 60] },
      { manager: V3_MANAGER, token_id: 7n, pool: POOL, ticks: [-600, 600] },
    ]);
  });

  it("behavior: a transfer moves the NFT to its new holder and a burn removes it", async () => {
    const db = newDb();
    await apply(db, block(10, v3Mint(ALICE, 7n, 1)));
    await apply(db, block(11, [nftTransfer(V3_MANAGER, ALICE, BOB, 7n, 0)]));
    expect(await held(db, ALICE)).toEqual([]);
    expect(await held(db, BOB)).toEqual([
      { manager: V3_MANAGER, token_id: 7n, pool: POOL, ticks: [-600, 600] },
    ]);
    await apply(db, block(12, [nftTransfer(V3_MANAGER, BOB, ZERO, 7n, 0)]));
    expect(await held(db, BOB)).toEqual([]);
  });

  it("behavior: NFTs of contracts outside the registry, and pool mints not made by the manager, are ignored", async () => {
    const db = newDb();
    const rogueMint = encodeLog(
      EVENTS.v3Mint,
      { sender: ROGUE, owner: ROGUE, tickLower: -60, tickUpper: 60, amount: 1n, amount0: 1n, amount1: 1n },
      { address: ROGUE, logIndex: 0, txHash: txHash(5) },
    );
    await apply(
      db,
      block(10, [
        rogueMint,
        nftTransfer(ROGUE, ZERO, ALICE, 1n, 1, 5),
        nftTransfer(V3_MANAGER, ZERO, CAROL, 9n, 2, 5),
      ]),
    );
    expect(await held(db, ALICE)).toEqual([]);
    // CAROL's NFT is real, but no pool mint in its name preceded it: held, pool unknown.
    expect(await held(db, CAROL)).toEqual([
      { manager: V3_MANAGER, token_id: 9n, pool: undefined, ticks: undefined },
    ]);
  });

  it("behavior: a reorg that removes a mint removes the position; one that removes a transfer gives it back", async () => {
    const db = newDb();
    await apply(db, block(10, v3Mint(ALICE, 7n, 1)));
    await apply(db, block(11, [nftTransfer(V3_MANAGER, ALICE, BOB, 7n, 0), ...v4Mint(CAROL, 4n, 3)]));
    await apply(
      db,
      block(12, [nftTransfer(V3_MANAGER, BOB, CAROL, 7n, 0), nftTransfer(V4_MANAGER, CAROL, ZERO, 4n, 1)]),
    );
    expect((await held(db, CAROL)).map((n) => n.token_id)).toEqual([7n]);

    await db.batch([
      ...(await planRevert(db, 1, [{ number: 12 }, { number: 11 }], { number: 10, hash: hash(10) })),
    ]);
    expect((await held(db, ALICE)).map((n) => n.token_id)).toEqual([7n]);
    expect(await held(db, BOB)).toEqual([]);
    expect(await held(db, CAROL)).toEqual([]);
  });

  it("behavior: what a wallet has held stays known after it gives it up, from the first block it held it", async () => {
    const db = newDb();
    await apply(db, block(10, v3Mint(ALICE, 7n, 1)));
    await apply(db, block(11, [nftTransfer(V3_MANAGER, ALICE, BOB, 7n, 0)]));
    await apply(db, block(12, [nftTransfer(V3_MANAGER, BOB, ALICE, 7n, 0)]));
    await apply(db, block(13, [nftTransfer(V3_MANAGER, ALICE, ZERO, 7n, 0)]));
    expect(await held(db, ALICE)).toEqual([]);
    expect(await everHeld(db, ALICE)).toEqual([{ token_id: 7n, block: 10 }]);
    expect(await everHeld(db, BOB)).toEqual([{ token_id: 7n, block: 11 }]);
    expect(await everHeld(db, CAROL)).toEqual([]);
  });

  it("behavior: a wallet that sends an NFT the index never saw it receive has held it, from that block", async () => {
    const db = newDb();
    await apply(db, block(20, [nftTransfer(V3_MANAGER, CAROL, BOB, 9n, 0)]));
    expect(await everHeld(db, CAROL)).toEqual([{ token_id: 9n, block: 20 }]);
    expect(await held(db, CAROL)).toEqual([]);
  });

  it("behavior: a reorg that removes the block a wallet first held an NFT in forgets that it held it", async () => {
    const db = newDb();
    await apply(db, block(10, v3Mint(ALICE, 7n, 1)));
    await apply(db, block(11, [nftTransfer(V3_MANAGER, ALICE, BOB, 7n, 0)]));
    await db.batch([...(await planRevert(db, 1, [{ number: 11 }], { number: 10, hash: hash(10) }))]);
    expect(await everHeld(db, BOB)).toEqual([]);
    expect(await everHeld(db, ALICE)).toEqual([{ token_id: 7n, block: 10 }]);
  });

  it("behavior: minted and passed on within one block, the NFT ends with its last holder only", async () => {
    const db = newDb();
    await apply(db, block(10, [...v3Mint(ALICE, 7n, 1), nftTransfer(V3_MANAGER, ALICE, BOB, 7n, 50, 2)]));
    expect(await held(db, ALICE)).toEqual([]);
    expect((await held(db, BOB)).map((n) => n.pool)).toEqual([POOL]);
  });
});
