import { describe, expect, it } from "vitest";
import { approximateBytes } from "../../../src/lib/approximateBytes.js";
import { Lru } from "../../../src/lib/Lru.js";

/** A wallet's token list as the index cache holds it: `count` entries. */
const tokenList = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    chain_id: 1,
    token: `0x${i.toString(16).padStart(40, "0")}`,
    standard: "erc20",
    first_block: 100 + i,
  }));

const budget = (maxBytes: number) => ({
  maxBytes,
  sizeOf: (key: string, value: unknown) => approximateBytes(key) + approximateBytes(value),
});

describe("Lru", () => {
  it("evicts the least recently used entry past its entry bound", () => {
    const lru = new Lru<string, number>(2);
    lru.set("a", 1);
    lru.set("b", 2);
    lru.get("a");
    lru.set("c", 3);
    expect([lru.peek("a"), lru.peek("b"), lru.peek("c")]).toEqual([1, undefined, 3]);
  });

  it("keeps an entry that is hit at least once per half of its bound's insertions", () => {
    const lru = new Lru<string, number>(1_000);
    lru.set("hot", 0);
    for (let i = 1; i <= 20_000; i++) {
      lru.set(`cold${i}`, i);
      if (i % 400 === 0) expect(lru.get("hot")).toBe(0);
    }
    expect(lru.peek("hot")).toBe(0);
    expect(lru.size).toBe(1_000);
    // The cold entries go oldest first: the newest 999 of them are kept beside it.
    expect(lru.peek("cold19002")).toBe(19_002);
    expect(lru.peek("cold19001")).toBeUndefined();
  });

  it("bytes: 50,000 distinct small entries stay inside the byte budget", () => {
    const lru = new Lru<string, ReadonlyArray<unknown>>(10_000_000, budget(1024 * 1024));
    for (let i = 0; i < 50_000; i++) lru.set(`0x${i.toString(16).padStart(40, "0")}`, []);
    expect(lru.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(lru.size).toBeLessThan(20_000);
    expect(lru.size).toBeGreaterThan(5_000);
  });

  it("bytes: one 1,200-token wallet counts as much as hundreds of small ones", () => {
    const small = approximateBytes("small000") + approximateBytes(tokenList(1));
    const lru = new Lru<string, ReadonlyArray<unknown>>(10_000, budget(1_000 * small));
    for (let i = 0; i < 1_000; i++) lru.set(`small${String(i).padStart(3, "0")}`, tokenList(1));
    lru.set("paging", tokenList(1_200));
    expect(lru.peek("paging")).toHaveLength(1_200);
    expect(lru.bytes).toBeLessThanOrEqual(1_000 * small);
    expect(lru.size).toBeLessThan(600);
  });

  it("bytes: a value larger than the whole budget is not kept, and evicts nothing", () => {
    const lru = new Lru<string, ReadonlyArray<unknown>>(1_000, budget(approximateBytes(tokenList(100))));
    lru.set("small", tokenList(1));
    lru.set("huge", tokenList(5_000));
    expect(lru.peek("huge")).toBeUndefined();
    expect(lru.peek("small")).toHaveLength(1);
  });

  it("bytes: resize counts what a pending value holds once it is known", () => {
    const maxBytes = approximateBytes({ result: tokenList(600) });
    const lru = new Lru<string, { result?: ReadonlyArray<unknown> }>(1_000, budget(maxBytes));
    const pending: { result?: ReadonlyArray<unknown> } = {};
    for (let i = 0; i < 50; i++) lru.set(`small${i}`, { result: tokenList(1) });
    lru.set("pending", pending);
    pending.result = tokenList(590);
    lru.resize("pending", pending);
    expect(lru.bytes).toBeLessThanOrEqual(maxBytes);
    expect(lru.peek("small0")).toBeUndefined();
    expect(lru.peek("pending")).toBe(pending);
  });

  it("bytes: delete and clear give the bytes back", () => {
    const lru = new Lru<string, ReadonlyArray<unknown>>(100, budget(1_000_000));
    lru.set("a", tokenList(10));
    lru.set("b", tokenList(10));
    lru.delete("a");
    expect(lru.bytes).toBe(approximateBytes("b") + approximateBytes(tokenList(10)));
    lru.clear();
    expect(lru.bytes).toBe(0);
  });
});

describe("approximateBytes", () => {
  it("grows with the number of entries and the length of strings", () => {
    expect(approximateBytes(tokenList(1_200))).toBeGreaterThan(100 * approximateBytes(tokenList(1)));
    expect(approximateBytes("x".repeat(1_000))).toBeGreaterThan(1_000);
    expect(approximateBytes({ a: 1n, b: 0.5, c: null, d: [new Uint8Array(100)] })).toBeGreaterThan(100);
  });

  it("stops at cycles", () => {
    const node: { next?: unknown } = {};
    node.next = node;
    expect(approximateBytes(node)).toBeLessThan(10_000);
  });
});
