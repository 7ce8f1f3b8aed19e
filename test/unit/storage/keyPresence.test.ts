import { MemoryLevel } from "memory-level";
import { describe, expect, it } from "vitest";
import { makeIndexReader } from "../../../src/indexer/IndexReader.js";
import { walletTokenKey, walletTokenView } from "../../../src/indexer/indexKeys.js";
import { PendingWrites } from "../../../src/indexer/PendingWrites.js";
import { watchKeyPresence } from "../../../src/storage/KeyPresence.js";
import type { Db } from "../../../src/storage/Level.js";

const wallet = (i: number) => `0x${i.toString(16).padStart(40, "0")}`;
const touch = (i: number) => walletTokenKey(wallet(i), 8453, wallet(1_000_000 + i));

describe("key presence", () => {
  it("behavior: keys there before and put since are never ruled out; others under the prefix are, once the scan is done", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    await db.batch(
      Array.from({ length: 5_000 }, (_, i) => ({ type: "put" as const, key: touch(i), value: {} })),
    );
    const watch = watchKeyPresence(db, [walletTokenView]);
    const [presence] = watch.presences;
    // Before the scan has finished, nothing is ruled out.
    expect(presence!.rulesOut(touch(99_999))).toBe(false);
    // Written while the scan runs: the hook sees it before LevelDB does.
    const during = db.batch([{ type: "put", key: touch(5_000), value: {} }]);
    expect(await watch.scanned).toBeUndefined();
    await during;
    await db.put(touch(5_001), {});
    await db.batch([{ type: "put", key: touch(5_002), value: "{}" }], { valueEncoding: "utf8" });

    for (let i = 0; i <= 5_002; i++) expect(presence!.rulesOut(touch(i))).toBe(false);
    const absent = Array.from({ length: 10_000 }, (_, i) => touch(100_000 + i));
    expect(absent.filter((key) => presence!.rulesOut(key)).length).toBeGreaterThan(9_900);
    // Keys of other views are never ruled out.
    expect(presence!.rulesOut("idx!tm!000000008453!0xaa")).toBe(false);

    // Deleted (a reorg's undo): maybe there still, so read, and found absent.
    await db.del(touch(3));
    expect(presence!.rulesOut(touch(3))).toBe(false);
    watch.detach();
    await db.put(touch(200_000), {});
    expect(presence!.rulesOut(touch(200_000))).toBe(true);
  });

  it("behavior: a wallet's tokens on a chain where it has none are read without LevelDB; where it has some, they are read", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    await db.put(walletTokenKey(wallet(1), 1, wallet(7)), { standard: "erc20", first_block: 3 });
    const watch = watchKeyPresence(db, [walletTokenView]);
    await watch.scanned;
    await db.put(walletTokenKey(wallet(2), 10, wallet(8)), { standard: "erc20", first_block: 4 });
    let iterators = 0;
    const iterator = db.iterator.bind(db);
    db.iterator = ((options: never) => {
      iterators += 1;
      return iterator(options);
    }) as typeof db.iterator;
    const reader = makeIndexReader(db, undefined, watch.presences[0]);
    expect(await reader.touchedTokens(wallet(1), 1)).toEqual([
      { chain_id: 1, token: wallet(7), standard: "erc20", first_block: 3 },
    ]);
    expect(await reader.touchedTokens(wallet(2), 10)).toEqual([
      { chain_id: 10, token: wallet(8), standard: "erc20", first_block: 4 },
    ]);
    expect(iterators).toBe(2);
    // A chain the wallet never touched, and a wallet never met: answered empty, no iterator.
    expect(await reader.touchedTokens(wallet(1), 10)).toEqual([]);
    expect(await reader.touchedTokens(wallet(3), 1)).toEqual([]);
    expect(iterators).toBe(2);
    // Every chain at once is read from LevelDB.
    expect(await reader.touchedTokens(wallet(3))).toEqual([]);
    expect(iterators).toBe(3);
    watch.detach();
  });

  it("behavior: a scan that cannot finish leaves nothing ruled out, and says why", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    await db.put(touch(1), {});
    await db.close();
    const watch = watchKeyPresence(db, [walletTokenView]);
    expect(await watch.scanned).toBeInstanceOf(Error);
    await watch.presences[0]!.scanEnded;
    expect(watch.presences[0]!.ready).toBe(false);
    expect(watch.presences[0]!.rulesOut(touch(2))).toBe(false);
  });

  it("behavior: the indexer's pending writes skip LevelDB for the keys ruled out, and still read the others", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    await db.put(touch(1), { first_block: 7 });
    const watch = watchKeyPresence(db, [walletTokenView]);
    await watch.scanned;
    const reads: Array<string> = [];
    const pending = new PendingWrites(
      {
        getSync: (key: string) => {
          reads.push(key);
          return db.getSync(key);
        },
      },
      watch.presences[0],
    );
    expect(await pending.getMany([touch(1), touch(2), "idx!ck!000000008453"])).toEqual([
      { first_block: 7 },
      undefined,
      undefined,
    ]);
    expect(reads).toEqual([touch(1), "idx!ck!000000008453"]);
  });
});
