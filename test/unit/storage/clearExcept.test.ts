import { MemoryLevel } from "memory-level";
import { describe, expect, it } from "vitest";
import { clearExcept, rangesOutside } from "../../../src/storage/clearExcept.js";
import type { Db } from "../../../src/storage/Level.js";
import { OUTBOX_RECORD_PREFIXES } from "../../../src/webhooks/migrations/outboxKeys.js";

const keysOf = async (db: Db) => {
  const keys: Array<string> = [];
  for await (const key of db.keys()) keys.push(key as string);
  return keys;
};

describe("rangesOutside", () => {
  it("default: the gaps around and between the kept prefixes", () => {
    expect(rangesOutside(["b!", "d!"])).toEqual([{ lt: "b!" }, { gte: 'b"', lt: "d!" }, { gte: 'd"' }]);
  });

  it("behavior: no prefix means everything; a prefix inside another adds nothing", () => {
    expect(rangesOutside([])).toEqual([{}]);
    expect(rangesOutside(["a", "ab", "a"])).toEqual([{ lt: "a" }, { gte: "b" }]);
  });

  it("behavior: adjacent prefixes leave no empty range between them", () => {
    expect(rangesOutside(["ab", "ac"])).toEqual([{ lt: "ab" }, { gte: "ad" }]);
  });
});

describe("clearExcept", () => {
  it("behavior: keeps the outbox's deliveries, counters and sequence; drops indexes, checkpoints and block records", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const kept = [
      "wh!seq",
      "wh!q!hook-1!0000000000000007",
      "wh!dl!hook-1!0000000000000003",
      "wh!st!hook-1",
      "wh!at!hook-1!0000000000000009",
    ];
    const dropped = [
      "ckpt!000000000001",
      "idx!seq",
      "idx!wt!0xabc!1",
      "wh!blk!000000000001!000000000010!0xhash!hook-1",
      "wh!pend!000000000001",
      "wh!q",
      "~later",
      "",
    ];
    await db.batch([...kept, ...dropped].map((key) => ({ type: "put" as const, key, value: 1 })));
    await clearExcept(db, OUTBOX_RECORD_PREFIXES);
    expect((await keysOf(db)).sort()).toEqual([...kept].sort());
  });
});
