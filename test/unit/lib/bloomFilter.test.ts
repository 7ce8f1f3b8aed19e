import { describe, expect, it } from "vitest";
import { BloomFilter } from "../../../src/lib/BloomFilter.js";

/** Wallet-token-shaped keys of a deterministic sequence (`salt` keeps two sequences apart). */
const keys = (count: number, salt: string) =>
  Array.from(
    { length: count },
    (_, i) =>
      `idx!wt!0x${salt}${i.toString(16).padStart(38, "0")}!000000008453!0x${(i * 7919).toString(16).padStart(40, "0")}`,
  );

describe("Bloom filter", () => {
  it("behavior: every string added is maybe there; few of the others are, however far past its first table it grows", () => {
    const filter = new BloomFilter(10_000);
    const added = keys(200_000, "aa");
    for (const key of added) filter.add(key);
    expect(added.every((key) => filter.mayHave(key))).toBe(true);
    const absent = keys(100_000, "bb");
    const falsePositives = absent.filter((key) => filter.mayHave(key)).length;
    // 0.3 % a table; five doublings from 10,000 to 200,000 keys.
    expect(falsePositives / absent.length).toBeLessThan(0.02);
    expect(filter.added).toBe(200_000);
    // About 1.5 bytes a key, rounded up to powers of two.
    expect(filter.bytes).toBeLessThan(200_000 * 1.5 * 4);
  });

  it("behavior: an item added again and again with addNew is counted once, so the filter does not grow with repeats", () => {
    const filter = new BloomFilter(1_000);
    const groups = keys(500, "dd");
    for (let round = 0; round < 20; round++) for (const group of groups) filter.addNew(group);
    expect(groups.every((group) => filter.mayHave(group))).toBe(true);
    expect(filter.added).toBeLessThanOrEqual(500);
    expect(filter.bytes).toBe(new BloomFilter(1_000).bytes);
    expect(filter.addNew(groups[0]!)).toBe(false);
    expect(filter.addNew("idx!wt!0xnew!")).toBe(true);
  });

  it("behavior: an empty filter has nothing", () => {
    const filter = new BloomFilter();
    expect(keys(1_000, "cc").some((key) => filter.mayHave(key))).toBe(false);
  });
});
