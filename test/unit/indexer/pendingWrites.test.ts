import { MemoryLevel } from "memory-level";
import { describe, expect, it } from "vitest";
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
});
