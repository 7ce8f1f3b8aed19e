import { MemoryLevel } from "memory-level";
import { describe, expect, it } from "vitest";
import { ChainConfig, NativeAsset, ProtocolConfig } from "../../../src/chains/ChainsConfig.js";
import type { LogLike } from "../../../src/decoding/index.js";
import { BLOCK_MESSAGE_VERSION, ChainBlock, ChainLog } from "../../../src/domain/ChainBlock.js";
import { planBlock, planReorg, planRevert } from "../../../src/indexer/applyBlock.js";
import { makeIndexReader } from "../../../src/indexer/IndexReader.js";
import type { Db } from "../../../src/storage/Level.js";
import {
  ALICE,
  BOB,
  EVENTS,
  encodeLog,
  FACTORY,
  PAIR,
  TOKEN_A,
  TOKEN_B,
  TX_HASH,
  WETH,
} from "../decoding/fixtures.js";

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
  protocols: [ProtocolConfig.make({ protocol: "UniswapV2", kind: "v2", address: FACTORY })],
  logos: {},
  urls: {},
  traces: false,
  confirmations: 0,
  finality_depth: 4,
});

const hash = (n: number, branch = "a") => `0x${branch.repeat(2)}${n.toString(16).padStart(62, "0")}`;

const asLog = (log: LogLike) => ChainLog.make(log as ConstructorParameters<typeof ChainLog>[0]);

const block = (number: number, logs: ReadonlyArray<LogLike>, branch = "a") =>
  ChainBlock.make({
    version: BLOCK_MESSAGE_VERSION,
    chain_id: 1,
    number,
    hash: hash(number, branch),
    parent_hash: hash(number - 1),
    timestamp: 1_700_000_000 + number * 12,
    source: "live",
    transactions: [],
    logs: logs.map(asLog),
    internal_transfers: null,
  });

const transfer = (token: string, from: string, to: string, logIndex: number) =>
  encodeLog(EVENTS.erc20Transfer, { from, to, value: 5n }, { address: token, logIndex, txHash: TX_HASH });

const metadataReader = (seen: Array<string>) => async (tokens: ReadonlyArray<string>) => {
  seen.push(...tokens);
  return tokens.map((token) => ({
    name: `Token ${token.slice(2, 6)}`,
    symbol: token.slice(2, 6).toUpperCase(),
    decimals: 18,
  }));
};

const apply = async (db: Db, b: ChainBlock, seen: Array<string> = []) =>
  db.batch([
    ...(await planBlock(db, chain, b, {
      metadata: metadataReader(seen),
      vaults: async (tokens) => tokens.map(() => null),
      underlying: async (contracts) => contracts.map(() => null),
    })),
  ]);

describe("indexer views", () => {
  it("default: a block's transfers, pools and time become views, and metadata is read once per token", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const reader = makeIndexReader(db);
    const seen: Array<string> = [];
    await apply(db, block(10, [transfer(TOKEN_A, ALICE, BOB, 0)]), seen);
    const pairCreated = encodeLog(
      EVENTS.v2PairCreated,
      { token0: TOKEN_A, token1: TOKEN_B, pair: PAIR, allPairsLength: 1n },
      { address: FACTORY, logIndex: 1 },
    );
    await apply(db, block(11, [transfer(TOKEN_A, BOB, ALICE, 0), pairCreated]), seen);

    expect(await reader.touchedTokens(ALICE)).toEqual([
      { chain_id: 1, token: TOKEN_A, standard: "erc20", first_block: 10 },
    ]);
    expect(await reader.touchedTokens(BOB)).toEqual([
      { chain_id: 1, token: TOKEN_A, standard: "erc20", first_block: 10 },
    ]);
    expect(await reader.poolsForToken(1, TOKEN_B)).toEqual([
      expect.objectContaining({
        pool: PAIR,
        kind: "v2",
        protocol: "UniswapV2",
        token0: TOKEN_A,
        token1: TOKEN_B,
        created_block: 11,
      }),
    ]);
    expect(await reader.tokenMetadata(1, [TOKEN_A, TOKEN_B])).toEqual([
      { name: "Token aaaa", symbol: "AAAA", decimals: 18 },
      { name: "Token bbbb", symbol: "BBBB", decimals: 18 },
    ]);
    expect(seen).toEqual([TOKEN_A, TOKEN_B]);
    expect(await reader.blockAtOrBefore(1, 1_700_000_000 + 11 * 12 + 5)).toBe(11);
    expect(await reader.blockAtOrBefore(1, 1_700_000_000 + 10 * 12)).toBe(10);
    expect(await reader.blockAtOrBefore(1, 1_700_000_000)).toBeUndefined();
    expect(await reader.checkpoint(1)).toEqual({ number: 11, hash: hash(11) });
  });

  it("behavior: pools of factories that are not configured are not indexed", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const rogue = encodeLog(
      EVENTS.v2PairCreated,
      { token0: TOKEN_A, token1: TOKEN_B, pair: PAIR, allPairsLength: 1n },
      { address: BOB },
    );
    await apply(db, block(10, [rogue]));
    expect(await makeIndexReader(db).poolsForToken(1, TOKEN_A)).toEqual([]);
  });

  it("behavior: reverting reorganised blocks removes exactly what they added", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const reader = makeIndexReader(db);
    await apply(db, block(10, [transfer(TOKEN_A, ALICE, BOB, 0)]));
    const snapshot = async () => {
      const entries: Array<[string, unknown]> = [];
      for await (const entry of db.iterator({ gte: "idx!", lt: "idx!~" }))
        if (!entry[0].startsWith("idx!undo!") && !entry[0].startsWith("idx!tm!")) entries.push(entry);
      return entries;
    };
    const before = await snapshot();
    const pairCreated = encodeLog(
      EVENTS.v2PairCreated,
      { token0: TOKEN_A, token1: TOKEN_B, pair: PAIR, allPairsLength: 1n },
      { address: FACTORY, logIndex: 1 },
    );
    await apply(db, block(11, [transfer(TOKEN_A, ALICE, BOB, 0), transfer(TOKEN_B, BOB, ALICE, 1)]));
    await apply(db, block(12, [pairCreated]));
    expect((await reader.touchedTokens(ALICE)).map((t) => t.token)).toEqual([TOKEN_A, TOKEN_B]);

    await db.batch([
      ...(await planRevert(db, 1, [{ number: 12 }, { number: 11 }], { number: 10, hash: hash(10) })),
    ]);
    const after = (await snapshot()).filter(([key]) => key !== "idx!ck!000000000001");
    expect(after).toEqual(before.filter(([key]) => key !== "idx!ck!000000000001"));
    expect(await reader.checkpoint(1)).toEqual({ number: 10, hash: hash(10) });
    expect(await reader.poolsForToken(1, TOKEN_A)).toEqual([]);
  });
  it("behavior: a reorg reverts every block applied above its common ancestor, also one it does not list", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const reader = makeIndexReader(db);
    await apply(db, block(10, [transfer(TOKEN_A, ALICE, BOB, 0)]));
    await apply(db, block(11, [transfer(TOKEN_A, ALICE, BOB, 0)]));
    // Published, but the follower stopped before saving that it had: it resumes with 11 as its tip.
    await apply(db, block(12, [transfer(TOKEN_B, ALICE, BOB, 0)]));
    expect((await reader.touchedTokens(BOB)).map((t) => t.token)).toEqual([TOKEN_A, TOKEN_B]);

    // The chain reorganised above 10 meanwhile: the follower lists only the block it knows it published.
    const reorg = {
      common_ancestor: { number: 10, hash: hash(10) },
      removed: [{ number: 11, hash: hash(11) }],
    };
    await db.batch([...(await planReorg(db, chain, await reader.checkpoint(1), reorg))]);
    expect((await reader.touchedTokens(BOB)).map((t) => t.token)).toEqual([TOKEN_A]);
    expect(await reader.checkpoint(1)).toEqual({ number: 10, hash: hash(10) });
    // The new branch's blocks at those heights are then applied, not taken for ones already applied.
    await apply(db, block(11, [], "b"));
    expect(await reader.checkpoint(1)).toEqual({ number: 11, hash: hash(11, "b") });
  });
});
