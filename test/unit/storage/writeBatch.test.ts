import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { afterEach, describe, expect, it } from "vitest";
import { walletTokenKey, walletTokenView } from "../../../src/indexer/indexKeys.js";
import { watchKeyPresence } from "../../../src/storage/KeyPresence.js";
import type { Db } from "../../../src/storage/Level.js";
import { writeBatch } from "../../../src/storage/writeBatch.js";

const wallet = (i: number) => `0x${i.toString(16).padStart(40, "0")}`;
const touch = (i: number) => walletTokenKey(wallet(i), 8453, wallet(1_000_000 + i));

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A real LevelDB with the service's value encoding, as the indexer writes to it. */
const openDb = async () => {
  dir = await mkdtemp(join(tmpdir(), "write-batch-"));
  const db = new ClassicLevel<string, unknown>(join(dir, "db"), { valueEncoding: "json" }) as unknown as Db;
  await db.open();
  return db;
};

describe("writing a batch", () => {
  it("behavior: puts and deletes land together, in order, and the key presence hook sees every put", async () => {
    const db = await openDb();
    await db.put("gone", 1);
    const watch = watchKeyPresence(db, [walletTokenView]);
    await watch.scanned;
    await writeBatch(db, [
      { type: "put", key: touch(1), value: { standard: "erc20", first_block: 7 } },
      { type: "del", key: "gone" },
      { type: "put", key: "twice", value: 1 },
      { type: "put", key: "twice", value: 2 },
    ]);
    expect(await db.get(touch(1))).toEqual({ standard: "erc20", first_block: 7 });
    expect(await db.get("gone")).toBeUndefined();
    expect(await db.get("twice")).toBe(2);
    expect(watch.presences[0]!.rulesOut(touch(1))).toBe(false);
    expect(watch.presences[0]!.rulesOut(touch(2))).toBe(true);
    await db.close();
  });

  it("behavior: a value the store refuses writes nothing of the batch and is thrown, the batch is closed, and the store goes on", async () => {
    const db = await openDb();
    const started: Array<{ write: () => Promise<void> }> = [];
    const batch = db.batch.bind(db) as () => { write: () => Promise<void> };
    (db as { batch: unknown }).batch = () => {
      const chained = batch();
      started.push(chained);
      return chained;
    };
    await expect(
      writeBatch(db, [
        { type: "put", key: "first", value: 1 },
        { type: "put", key: "refused", value: undefined },
      ]),
    ).rejects.toThrow();
    expect(await db.get("first")).toBeUndefined();
    // Closed, not left open until the store closes: it writes nothing more.
    await expect(started[0]!.write()).rejects.toMatchObject({ code: "LEVEL_BATCH_NOT_OPEN" });
    await writeBatch(db, [{ type: "put", key: "after", value: 3 }]);
    expect(await db.get("after")).toBe(3);
    await db.close();
  });
});
