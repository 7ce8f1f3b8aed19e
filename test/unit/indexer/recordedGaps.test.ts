import { MemoryLevel } from "memory-level";
import { describe, expect, it } from "vitest";
import { indexGapKey } from "../../../src/indexer/indexKeys.js";
import { RecordedGaps } from "../../../src/indexer/RecordedGaps.js";
import type { Db } from "../../../src/storage/Level.js";

/** `gaps` written as the indexer writes a batch: what LevelDB then holds for chain 1, and what was told. */
const written = async (db: Db, gaps: RecordedGaps) => {
  await db.batch([...gaps.writes()]);
  return { told: gaps.written(), held: await db.get(indexGapKey(1)) };
};

describe("a chain's recorded gap", () => {
  it("behavior: blocks applied in order from the gap's first one fill it, and the last one removes it", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    await db.put(indexGapKey(1), { from: 4, to: 6 });
    const gaps = await RecordedGaps.read(db, [1, 2]);
    gaps.fill(1, 4);
    expect(await written(db, gaps)).toEqual({ told: [[1, { from: 5, to: 6 }]], held: { from: 5, to: 6 } });
    gaps.fill(1, 5);
    gaps.fill(1, 6);
    expect(await written(db, gaps)).toEqual({ told: [[1, undefined]], held: undefined });
  });

  it("edge: a block inside the gap but not at its start fills nothing, and nothing is written or told", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    await db.put(indexGapKey(1), { from: 4, to: 9 });
    const gaps = await RecordedGaps.read(db, [1]);
    gaps.fill(1, 7);
    gaps.fill(2, 7);
    expect(gaps.writes()).toEqual([]);
    expect(await written(db, gaps)).toEqual({ told: [], held: { from: 4, to: 9 } });
  });

  it("edge: a gap filled and another recorded in one batch end as the second says", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const gaps = await RecordedGaps.read(db, [1]);
    gaps.widen(1, 4, 4);
    gaps.fill(1, 4);
    gaps.widen(1, 7, 9);
    expect(await written(db, gaps)).toEqual({ told: [[1, { from: 7, to: 9 }]], held: { from: 7, to: 9 } });
    // A later gap widens the span over both.
    gaps.widen(1, 12, 12);
    expect(await written(db, gaps)).toEqual({ told: [[1, { from: 7, to: 12 }]], held: { from: 7, to: 12 } });
  });
});
