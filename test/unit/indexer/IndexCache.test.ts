import { randomBytes } from "node:crypto";
import { MemoryLevel } from "memory-level";
import { describe, expect, it } from "vitest";
import { IndexCache } from "../../../src/indexer/IndexCache.js";
import { makeIndexReader } from "../../../src/indexer/IndexReader.js";
import { tokenMetadataKey, walletTokenPrefix } from "../../../src/indexer/indexKeys.js";
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
});
