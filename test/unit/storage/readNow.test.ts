import { MemoryLevel } from "memory-level";
import { describe, expect, it } from "vitest";
import type { Db } from "../../../src/storage/Level.js";
import { readNow } from "../../../src/storage/readNow.js";

describe("reading a few keys at once", () => {
  it("behavior: an open database and one still opening answer the same values, absent keys as undefined", async () => {
    const seed = async (db: Db) => db.batch([{ type: "put", key: "a", value: { n: 1 } }]);
    const open = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    await open.open();
    await seed(open);
    const opening = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const reading = readNow(opening, ["a", "b"]);
    await seed(opening);
    expect(await readNow(open, ["a", "b"])).toEqual([{ n: 1 }, undefined]);
    // Queued behind the open, the read was sent before the write and does not see it.
    expect(await reading).toEqual([undefined, undefined]);
    expect(await readNow(opening, ["a", "b"])).toEqual([{ n: 1 }, undefined]);
  });
});
