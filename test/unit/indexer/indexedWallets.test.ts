import { MemoryLevel } from "memory-level";
import { describe, expect, it } from "vitest";
import type { ChainConfig } from "../../../src/chains/ChainsConfig.js";
import type { LogLike } from "../../../src/decoding/index.js";
import { discoveryRecordKey } from "../../../src/discovery/DiscoveryRecord.js";
import { BLOCK_MESSAGE_VERSION, ChainBlock, ChainLog } from "../../../src/domain/ChainBlock.js";
import { planBlock } from "../../../src/indexer/applyBlock.js";
import { IndexedWallets } from "../../../src/indexer/IndexedWallets.js";
import { makeIndexReader } from "../../../src/indexer/IndexReader.js";
import { indexCheckpointKey } from "../../../src/indexer/indexKeys.js";
import type { Db } from "../../../src/storage/Level.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { ALICE, BOB, EVENTS, encodeLog, TOKEN_A, TOKEN_B, TX_HASH, WETH } from "../decoding/fixtures.js";

const chainWith = (indexWallets: "all" | "discovered" | undefined, startBlock?: number) =>
  testChainConfig({
    wrapped_native: WETH,
    ...(indexWallets === undefined ? {} : { index_wallets: indexWallets }),
    ...(startBlock === undefined ? {} : { start_block: startBlock }),
  });
const discovered = chainWith("discovered");
const all = chainWith("all");

const CAROL = "0x000000000000000000000000000000000000ca01";
const memoryDb = () => new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;

const block = (number: number, logs: ReadonlyArray<LogLike>) =>
  ChainBlock.make({
    version: BLOCK_MESSAGE_VERSION,
    chain_id: 1,
    number,
    hash: `0x${number.toString(16).padStart(64, "0")}`,
    parent_hash: `0x${(number - 1).toString(16).padStart(64, "0")}`,
    timestamp: 1_700_000_000 + number * 12,
    source: "live",
    transactions: [],
    logs: logs.map((log) => ChainLog.make(log as ConstructorParameters<typeof ChainLog>[0])),
    internal_transfers: null,
  });
const transfer = (token: string, from: string, to: string, logIndex: number) =>
  encodeLog(EVENTS.erc20Transfer, { from, to, value: 5n }, { address: token, logIndex, txHash: TX_HASH });

/** Plans and writes a block as the indexer does: planning told first, then asked about each touch. */
const index = async (db: Db, wallets: IndexedWallets, chain: ChainConfig, b: ChainBlock) => {
  wallets.planning(chain.chain_id, b.number);
  await db.batch([
    ...(await planBlock(db, chain, b, {
      metadata: async (tokens) => tokens.map(() => ({ name: null, symbol: null, decimals: 18 })),
      vaults: async (tokens) => tokens.map(() => null),
      underlying: async (contracts) => contracts.map(() => null),
      recordsWallet: (wallet) => wallets.records(chain, wallet),
    })),
  ]);
};

describe("wallets whose token touches the index records", () => {
  it("default: a chain read from its `start_block` records every wallet's touches, one followed from the head only discovered wallets'", async () => {
    const fromBlock = chainWith(undefined, 0);
    const fromHead = chainWith(undefined);
    const db = memoryDb();
    const wallets = await IndexedWallets.load(db, [fromBlock]);
    await index(db, wallets, fromBlock, block(10, [transfer(TOKEN_A, ALICE, BOB, 0)]));
    expect((await makeIndexReader(db).touchedTokens(BOB)).map((t) => t.token)).toEqual([TOKEN_A]);
    expect(wallets.partial(fromBlock)).toBe(false);
    expect(wallets.recordedWallets(1)).toBeUndefined();

    const headDb = memoryDb();
    const headWallets = await IndexedWallets.load(headDb, [fromHead]);
    await index(headDb, headWallets, fromHead, block(10, [transfer(TOKEN_A, ALICE, BOB, 0)]));
    expect(await makeIndexReader(headDb).touchedTokens(BOB)).toEqual([]);
    expect(headWallets.partial(fromHead)).toBe(true);
    expect(headWallets.recordedWallets(1)).toBe(0);
  });

  it("behavior: a chain set to `all` records every wallet's touches, and its wallets' history in the index starts where the index does", async () => {
    const db = memoryDb();
    const wallets = await IndexedWallets.load(db, [all]);
    await index(db, wallets, all, block(10, [transfer(TOKEN_A, ALICE, BOB, 0)]));
    const reader = makeIndexReader(db);
    expect((await reader.touchedTokens(ALICE)).map((t) => t.token)).toEqual([TOKEN_A]);
    expect((await reader.touchedTokens(BOB)).map((t) => t.token)).toEqual([TOKEN_A]);
    expect(wallets.firstRecorded(all, CAROL, 7)).toBe(7);
    expect(wallets.partial(all)).toBe(false);
    expect(wallets.partialOn(1)).toBe(false);
  });

  it("behavior: with `discovered`, only wallets discovery marked get entries, every token still gets its metadata, and a mark begins at the next block planned", async () => {
    const db = memoryDb();
    const wallets = await IndexedWallets.load(db, [discovered]);
    expect(wallets.partial(discovered)).toBe(true);
    expect(wallets.partialOn(1)).toBe(true);
    await index(db, wallets, discovered, block(10, [transfer(TOKEN_A, ALICE, BOB, 0)]));
    // Block 11's planning has begun when ALICE is marked: her history in the index starts at 12.
    wallets.planning(1, 11);
    await wallets.add(discovered, [ALICE]);
    expect(wallets.firstRecorded(discovered, ALICE, 0)).toBe(12);
    expect(wallets.firstRecorded(discovered, BOB, 0)).toBeUndefined();
    await index(db, wallets, discovered, block(12, [transfer(TOKEN_B, BOB, ALICE, 0)]));
    const reader = makeIndexReader(db);
    expect(await reader.touchedTokens(ALICE)).toEqual([
      { chain_id: 1, token: TOKEN_B, standard: "erc20", first_block: 12 },
    ]);
    expect(await reader.touchedTokens(BOB)).toEqual([]);
    // Tokens seen in any block still join the index's metadata (and the sweep universe with it).
    expect(await reader.tokenMetadata(1, [TOKEN_A, TOKEN_B])).toEqual([
      { name: null, symbol: null, decimals: 18 },
      { name: null, symbol: null, decimals: 18 },
    ]);
    // The mark outlives the process: a restart (or a snapshot of this index) records the same wallets.
    const reloaded = await IndexedWallets.load(db, [discovered]);
    expect(reloaded.records(discovered, ALICE)).toBe(true);
    expect(reloaded.records(discovered, BOB)).toBe(false);
    expect(reloaded.firstRecorded(discovered, ALICE, 0)).toBe(12);
    // Where the chain's index starts later than the mark, the scan reads up to the index's start.
    expect(reloaded.firstRecorded(discovered, ALICE, 50)).toBe(50);
  });

  it("behavior: a mark taken while blocks past the planning count are already written begins after the checkpoint, and a second ask waits for the first", async () => {
    const db = memoryDb();
    await db.put(indexCheckpointKey(1), { number: 40, hash: "0x01" });
    const wallets = await IndexedWallets.load(db, [discovered]);
    wallets.planning(1, 30);
    const first = wallets.add(discovered, [CAROL]);
    // Recorded at once: a block planned while the mark is stored already counts the wallet.
    expect(wallets.records(discovered, CAROL)).toBe(true);
    const second = wallets.add(discovered, [CAROL]);
    await second;
    expect(wallets.firstRecorded(discovered, CAROL, 0)).toBe(41);
    await first;
    expect(wallets.marked(1)).toBe(1);
  });

  it("behavior: marks made on several chains in one turn are stored in one batch, each from its own chain's next block; a failed batch takes them all back", async () => {
    const base = testChainConfig({ chain_id: 8453, name: "base", index_wallets: "discovered" });
    const db = memoryDb();
    await db.put(indexCheckpointKey(8453), { number: 70, hash: "0x01" });
    const wallets = await IndexedWallets.load(db, [discovered, base]);
    wallets.planning(1, 20);
    const batches: Array<number> = [];
    const batch = db.batch.bind(db);
    let failNext = false;
    db.batch = ((ops: ReadonlyArray<unknown>) => {
      batches.push(ops.length);
      if (failNext) return Promise.reject(new Error("disk full"));
      return batch(ops as never);
    }) as unknown as typeof db.batch;
    // A wallet's first request marks it on each chain it reads, one after another.
    await Promise.all([wallets.add(discovered, [ALICE]), wallets.add(base, [ALICE, BOB])]);
    expect(batches).toEqual([3]);
    expect(wallets.firstRecorded(discovered, ALICE, 0)).toBe(21);
    expect(wallets.firstRecorded(base, BOB, 0)).toBe(71);
    const reloaded = await IndexedWallets.load(db, [discovered, base]);
    expect([
      reloaded.records(discovered, ALICE),
      reloaded.records(base, ALICE),
      reloaded.records(base, BOB),
    ]).toEqual([true, true, true]);
    // Not stored, not marked: a later start of the wallets' discovery marks them again.
    failNext = true;
    const failed = await Promise.allSettled([wallets.add(discovered, [CAROL]), wallets.add(base, [CAROL])]);
    expect(failed.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    expect(batches).toEqual([3, 2]);
    expect([wallets.records(discovered, CAROL), wallets.records(base, CAROL)]).toEqual([false, false]);
  });

  it("behavior: switching a chain from `discovered` to `all` keeps scans reading up to where every wallet began to be recorded", async () => {
    const db = memoryDb();
    const before = await IndexedWallets.load(db, [discovered]);
    await before.add(discovered, [ALICE]);
    await db.put(indexCheckpointKey(1), { number: 99, hash: "0x01" });
    const after = await IndexedWallets.load(db, [all]);
    expect(after.records(all, BOB)).toBe(true);
    expect(after.partial(all)).toBe(true);
    expect(after.partialOn(1)).toBe(true);
    expect(after.firstRecorded(all, BOB, 0)).toBe(100);
    expect(after.switched).toEqual([expect.stringContaining("records every wallet's from block 100 on")]);
    expect(after.firstRecorded(all, BOB, 150)).toBe(150);
    // Settled once: a later start keeps the block where `all` began.
    await db.put(indexCheckpointKey(1), { number: 500, hash: "0x02" });
    expect((await IndexedWallets.load(db, [all])).firstRecorded(all, BOB, 0)).toBe(100);
  });

  it("behavior: switching a chain from `all` to `discovered` goes on recording the wallets discovery already met", async () => {
    const db = memoryDb();
    await db.put(discoveryRecordKey(1, ALICE), { swept_block: 5 });
    const wallets = await IndexedWallets.load(db, [discovered]);
    expect(wallets.records(discovered, ALICE)).toBe(true);
    expect(wallets.records(discovered, BOB)).toBe(false);
    // Its touches were recorded all along, from wherever the index starts.
    expect(wallets.firstRecorded(discovered, ALICE, 3)).toBe(3);
  });
});
