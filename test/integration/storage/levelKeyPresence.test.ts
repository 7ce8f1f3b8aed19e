import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect, Exit, Layer, Scope } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { walletTokenChainPrefix, walletTokenKey, walletTokenView } from "../../../src/indexer/indexKeys.js";
import { KeyPresences, Level, layer } from "../../../src/storage/Level.js";

const wallet = (i: number) => `0x${i.toString(16).padStart(40, "0")}`;
const touch = (i: number) => walletTokenKey(wallet(i), 1, wallet(10_000_000 + i));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-presence-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The store at `dir` opened as the service opens it (watching the wallet-token view) for `use`. */
const opened = async <A>(use: (db: Level["Type"], presences: KeyPresences["Type"]) => Promise<A>) => {
  const scope = await Effect.runPromise(Scope.make());
  try {
    const context = await Effect.runPromise(
      Layer.buildWithScope(layer(join(dir, "db"), [walletTokenView]), scope),
    );
    const db = context.unsafeMap.get(Level.key) as Level["Type"];
    const presences = context.unsafeMap.get(KeyPresences.key) as KeyPresences["Type"];
    return await use(db, presences);
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void));
  }
};

describe("key presence on the service's LevelDB", () => {
  it("behavior: reopened, the store's wallet-token keys are found by the scan, those written since by the hook, and absent ones are ruled out", async () => {
    await opened(async (db) => {
      await db.batch(
        Array.from({ length: 20_000 }, (_, i) => ({ type: "put" as const, key: touch(i), value: {} })),
      );
    });
    await opened(async (db, presences) => {
      const presence = presences.get(walletTokenView)!;
      await presence.scanEnded;
      expect(presence.ready).toBe(true);
      expect(presence.added).toBe(20_000);
      await db.batch([{ type: "put", key: touch(20_000), value: {} }]);
      const present = Array.from({ length: 20_001 }, (_, i) => touch(i));
      expect(present.filter((key) => presence.rulesOut(key))).toEqual([]);
      // Every key it rules out is indeed absent from LevelDB.
      const absent = Array.from({ length: 5_000 }, (_, i) => touch(1_000_000 + i));
      const ruledOut = absent.filter((key) => presence.rulesOut(key));
      expect(ruledOut.length).toBeGreaterThan(4_950);
      expect((await db.getMany(ruledOut)).every((value) => value === undefined)).toBe(true);
    });
  });

  it("behavior: a wallet's tokens on a chain are ruled out as a group only where it has none there, scanned or written since", async () => {
    await opened(async (db, presences) => {
      const presence = presences.get(walletTokenView)!;
      await presence.scanEnded;
      await db.batch([{ type: "put", key: walletTokenKey(wallet(30_000), 10, wallet(1)), value: {} }]);
      // Scanned (20,000 wallets on chain 1) and written since (one wallet on chain 10).
      const held = [
        ...Array.from({ length: 20_000 }, (_, i) => walletTokenChainPrefix(wallet(i), 1)),
        walletTokenChainPrefix(wallet(30_000), 10),
      ];
      expect(held.filter((group) => presence.rulesOutGroup(group))).toEqual([]);
      // The same wallets on another chain, and wallets never written, hold nothing there.
      const empty = [
        ...Array.from({ length: 2_000 }, (_, i) => walletTokenChainPrefix(wallet(i), 8453)),
        ...Array.from({ length: 2_000 }, (_, i) => walletTokenChainPrefix(wallet(2_000_000 + i), 1)),
        walletTokenChainPrefix(wallet(30_000), 1),
      ];
      const ruledOut = empty.filter((group) => presence.rulesOutGroup(group));
      expect(ruledOut.length).toBeGreaterThan(3_950);
      for (const group of ruledOut)
        expect(await db.keys({ gte: group, lt: `${group}~`, limit: 1 }).all()).toEqual([]);
      // A group is never taken for a key, nor a key for a group.
      expect(presence.rulesOut(walletTokenChainPrefix(wallet(1), 1))).toBe(true);
      expect(presence.rulesOutGroup(touch(1))).toBe(true);
    });
  });
});
