import { MemoryLevel } from "memory-level";
import { describe, expect, it } from "vitest";
import { tokenMetadataKey, vaultProbeKey, walletTokenKey } from "../../../src/indexer/indexKeys.js";
import { PendingWrites } from "../../../src/indexer/PendingWrites.js";

describe("pending writes of a catch-up batch", () => {
  it("behavior: a read sees the batch's own puts and deletes over what LevelDB holds, and LevelDB after a clear", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" });
    await db.batch([
      { type: "put", key: "kept", value: { first_block: 1 } },
      { type: "put", key: "deleted", value: 2 },
      { type: "put", key: "replaced", value: "old" },
    ]);
    const pending = new PendingWrites(db);
    pending.add([
      { type: "del", key: "deleted" },
      { type: "put", key: "replaced", value: "new" },
      { type: "put", key: "added", value: null },
    ]);

    expect(await pending.getMany(["kept", "deleted", "replaced", "added", "absent"])).toEqual([
      { first_block: 1 },
      undefined,
      "new",
      null,
      undefined,
    ]);
    expect(await pending.get("deleted")).toBeUndefined();
    expect(pending.ops.map((op) => op.key)).toEqual(["deleted", "replaced", "added"]);

    pending.clear();
    expect(pending.ops).toEqual([]);
    expect(await pending.getMany(["deleted", "replaced", "added"])).toEqual([2, "old", undefined]);
  });

  it("behavior: token metadata and vault probes found once are not read from LevelDB again, until an undo deletes them; absent ones are read each time", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" });
    const metadata = tokenMetadataKey(1, "0xaa");
    const probe = vaultProbeKey(1, "0xaa");
    const later = tokenMetadataKey(1, "0xbb");
    const touch = walletTokenKey("0x01", 1, "0xaa");
    await db.batch([
      { type: "put", key: metadata, value: { name: "A", symbol: "A", decimals: 18 } },
      { type: "put", key: probe, value: { asset: null } },
      { type: "put", key: touch, value: { first_block: 1 } },
    ]);
    const reads: Array<string> = [];
    const pending = new PendingWrites({
      getSync: (key: string) => {
        reads.push(key);
        return db.getSync(key);
      },
    });
    const keys = [metadata, probe, later, touch];
    expect(await pending.getMany(keys)).toEqual([
      { name: "A", symbol: "A", decimals: 18 },
      { asset: null },
      undefined,
      { first_block: 1 },
    ]);
    pending.clear();
    // Another writer (discovery) adds the metadata that was absent: it is read, not remembered absent.
    await db.put(later, { name: "B", symbol: "B", decimals: 6 });
    expect(await pending.getMany(keys)).toEqual([
      { name: "A", symbol: "A", decimals: 18 },
      { asset: null },
      { name: "B", symbol: "B", decimals: 6 },
      { first_block: 1 },
    ]);
    expect(reads).toEqual([metadata, probe, later, touch, later, touch]);

    // A reorg's undo deletes the probe: it is absent from then on, in this batch and after it.
    pending.add([{ type: "del", key: probe }]);
    await db.del(probe);
    expect(await pending.get(probe)).toBeUndefined();
    pending.clear();
    expect(await pending.get(probe)).toBeUndefined();
    expect(reads.at(-1)).toBe(probe);
  });
});
