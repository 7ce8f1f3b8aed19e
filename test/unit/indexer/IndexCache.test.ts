import { randomBytes } from "node:crypto";
import { MemoryLevel } from "memory-level";
import { describe, expect, it } from "vitest";
import { IndexCache } from "../../../src/indexer/IndexCache.js";
import { makeIndexReader } from "../../../src/indexer/IndexReader.js";
import {
  indexCheckpointKey,
  poolKey,
  tokenMetadataKey,
  tokenPoolKey,
  walletTokenKey,
  walletTokenPrefix,
} from "../../../src/indexer/indexKeys.js";
import type { Db } from "../../../src/storage/Level.js";

const MB = 1024 * 1024;
const randomAddress = () => `0x${randomBytes(20).toString("hex")}`;

const withIndex = async () => {
  const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
  await db.open();
  return db;
};

describe("IndexCache", () => {
  it("bytes: wallets and tokens clients make up stay inside the budget, and answers stay right", async () => {
    const db = await withIndex();
    const whale = randomAddress();
    const token = randomAddress();
    await db.put(`${walletTokenPrefix(whale)}1!${token}`, { standard: "erc20", first_block: 7 });
    await db.put(tokenMetadataKey(1, token), { name: "Token", symbol: "TK", decimals: 6 });
    const cache = new IndexCache(MB);
    const reader = makeIndexReader(db, cache);
    // Never-seen wallets and tokens, as a hostile client would send them.
    for (let i = 0; i < 20_000; i++) {
      await reader.touchedTokens(randomAddress());
      await reader.tokenMetadata(1, [randomAddress(), randomAddress()]);
    }
    const held = cache.wallets.bytes + cache.metadata.bytes + cache.pools.bytes;
    expect(held).toBeLessThanOrEqual(MB);
    expect(cache.wallets.size).toBeLessThan(10_000);
    expect(cache.metadata.size).toBeLessThan(10_000);
    expect(await reader.touchedTokens(whale)).toEqual([
      { chain_id: 1, token, standard: "erc20", first_block: 7 },
    ]);
    expect(await reader.tokenMetadata(1, [token, randomAddress()])).toEqual([
      { name: "Token", symbol: "TK", decimals: 6 },
      undefined,
    ]);
  });

  it("behavior: metadata of more tokens than the cache holds is answered in full", async () => {
    const db = await withIndex();
    const tokens = Array.from({ length: 3_000 }, randomAddress);
    await db.batch(
      tokens.map((t, i) => ({
        type: "put" as const,
        key: tokenMetadataKey(1, t),
        value: { name: `T${i}`, symbol: null, decimals: 18 },
      })),
    );
    const reader = makeIndexReader(db, new IndexCache(64 * 1024));
    const answers = await reader.tokenMetadata(1, tokens);
    expect(answers.map((m) => m?.name)).toEqual(tokens.map((_, i) => `T${i}`));
  });
  it("behavior: a read that began before a reorg's batch is not remembered after it", async () => {
    const db = await withIndex();
    const wallet = randomAddress();
    const token = randomAddress();
    const touched = `${walletTokenPrefix(wallet)}1!${token}`;
    await db.put(touched, { standard: "erc20", first_block: 12 });
    await db.put(indexCheckpointKey(1), { number: 12, hash: "0x12" });
    // LevelDB reads see the views as they were when the read began; these are held until the reorg is written.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let readsTaken = 0;
    const hold = async <A>(value: A) => {
      readsTaken++;
      await held;
      return value;
    };
    const slow = new Proxy(db, {
      get: (target, property, receiver) => {
        if (property === "iterator")
          return (options: object) =>
            (async function* () {
              yield* await hold(await target.iterator(options).all());
            })();
        if (property === "get") return async (key: string) => hold(await target.get(key));
        return Reflect.get(target, property, receiver);
      },
    });
    const cache = new IndexCache(MB);
    const reader = makeIndexReader(slow, cache);
    const tokensRead = reader.touchedTokens(wallet);
    const checkpointRead = reader.checkpoint(1);
    while (readsTaken < 2) await new Promise((resolve) => setImmediate(resolve));
    // The indexer reverts block 12, then tells the cache.
    await db.batch([
      { type: "del", key: touched },
      { type: "put", key: indexCheckpointKey(1), value: { number: 11, hash: "0x11" } },
    ]);
    cache.reverted(1, { number: 11, hash: "0x11" });
    release();
    expect(await tokensRead).toHaveLength(1);
    await checkpointRead;
    expect(await reader.touchedTokens(wallet)).toEqual([]);
    expect(await reader.checkpoint(1)).toEqual({ number: 11, hash: "0x11" });
  });
  it("behavior: a write of one token's metadata, one pool or one chain's wallet tokens forgets only those, and reads answer the new values", async () => {
    const db = await withIndex();
    const wallet = randomAddress();
    const [known, added, other, third] = [randomAddress(), randomAddress(), randomAddress(), randomAddress()];
    await db.put(tokenMetadataKey(1, known), { name: "Known", symbol: "K", decimals: 18 });
    await db.put(walletTokenKey(wallet, 10, third), { standard: "erc20", first_block: 3 });
    let reads = 0;
    const counted = new Proxy(db, {
      get: (target, property, receiver) => {
        if (property === "getMany" || property === "iterator" || property === "values") {
          const f = Reflect.get(target, property, receiver) as (...args: Array<unknown>) => unknown;
          return (...args: Array<unknown>) => {
            reads++;
            return f.apply(target, args);
          };
        }
        return Reflect.get(target, property, receiver);
      },
    });
    const cache = new IndexCache(MB);
    const reader = makeIndexReader(counted, cache);
    await reader.tokenMetadata(1, [known, added]);
    await reader.poolsForToken(1, other);
    await reader.poolsForToken(1, third);
    await reader.touchedTokens(wallet, 1);
    await reader.touchedTokens(wallet, 10);
    const before = reads;
    // A sweep on chain 1 found `added`: its metadata, the wallet's record of it, and a pool of `added` and `other`.
    const pool = {
      pool: randomAddress(),
      kind: "v2",
      protocol: "UniswapV2",
      factory: randomAddress(),
      token0: added,
      token1: other,
    };
    const ops = [
      {
        type: "put" as const,
        key: tokenMetadataKey(1, added),
        value: { name: "Added", symbol: "A", decimals: 6 },
      },
      {
        type: "put" as const,
        key: walletTokenKey(wallet, 1, added),
        value: { standard: "erc20", first_block: 9 },
      },
      { type: "put" as const, key: poolKey(1, pool.pool), value: pool },
      { type: "put" as const, key: tokenPoolKey(1, added, pool.pool), value: pool.pool },
      { type: "put" as const, key: tokenPoolKey(1, other, pool.pool), value: pool.pool },
    ];
    await db.batch(ops);
    cache.written(ops);
    // Untouched keys are still answered from memory.
    expect(await reader.tokenMetadata(1, [known])).toEqual([{ name: "Known", symbol: "K", decimals: 18 }]);
    expect(await reader.poolsForToken(1, third)).toEqual([]);
    expect(await reader.touchedTokens(wallet, 10)).toEqual([
      { chain_id: 10, token: third, standard: "erc20", first_block: 3 },
    ]);
    expect(reads).toBe(before);
    // Written ones are read again, and show what was written.
    expect(await reader.tokenMetadata(1, [added])).toEqual([{ name: "Added", symbol: "A", decimals: 6 }]);
    expect(await reader.poolsForToken(1, other)).toEqual([pool]);
    expect(await reader.touchedTokens(wallet, 1)).toEqual([
      { chain_id: 1, token: added, standard: "erc20", first_block: 9 },
    ]);
    expect(reads).toBeGreaterThan(before);
  });
});
