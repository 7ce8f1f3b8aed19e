import { describe, expect, it } from "vitest";
import type { ChainHoldings, Holding } from "../../../src/balances/ChainHoldings.js";
import { makeReadCache } from "../../../src/lib/readCache.js";

const MB = 1024 * 1024;

/** A wallet's read with `count` priced tokens, like the devnet's 1,200-token paging wallet. */
const holdingsOf = (count: number): ChainHoldings => ({
  chainId: 1,
  block: 100,
  holdings: Array.from(
    { length: count },
    (_, i): Holding => ({
      address: `0x${i.toString(16).padStart(40, "0")}`,
      amount: 10n ** 18n + BigInt(i),
      symbol: `TK${i}`,
      name: `Paging token ${i}`,
      decimals: 18,
      price: { priceUsd: 1.5 + i, poolSize: 25_000.5, pool: undefined },
    }),
  ),
});

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("read cache (wallet reads of the balances route)", () => {
  it("bytes: reads of a 1,200-token wallet under many keys stay inside the byte budget", async () => {
    const cache = makeReadCache<ChainHoldings>(5_000, 4 * MB);
    // The single-token route keys a read by the token asked for: a client picks as many as it likes.
    for (let i = 0; i < 200; i++)
      await cache.through(`paging|1|100|0xtoken${i}`, async () => holdingsOf(1_200));
    await settle();
    expect(cache.bytes()).toBeLessThanOrEqual(4 * MB);
    expect(cache.bytes()).toBeGreaterThan(2 * MB);
    expect(cache.size()).toBeLessThan(50);
  });

  it("behavior: concurrent identical reads share one, and a later one is answered from memory", async () => {
    const cache = makeReadCache<ChainHoldings>(100, MB);
    let reads = 0;
    const read = async () => {
      reads += 1;
      return holdingsOf(3);
    };
    const [a, b] = await Promise.all([cache.through("w|1|100|", read), cache.through("w|1|100|", read)]);
    await cache.through("w|1|100|", read);
    expect(a).toBe(b);
    expect(reads).toBe(1);
  });

  it("behavior: a failed read is not remembered", async () => {
    const cache = makeReadCache<ChainHoldings>(100, MB);
    await expect(cache.through("w|1|100|", () => Promise.reject(new Error("node down")))).rejects.toThrow();
    await settle();
    expect((await cache.through("w|1|100|", async () => holdingsOf(2))).holdings).toHaveLength(2);
  });

  it("behavior: the entry bound still applies to small reads", async () => {
    const cache = makeReadCache<ChainHoldings>(10, 64 * MB);
    for (let i = 0; i < 100; i++) await cache.through(`w${i}|1|100|`, async () => holdingsOf(1));
    expect(cache.size()).toBe(10);
  });
});
