import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect, Exit, Layer, Scope } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { walletTokenKey, walletTokenView } from "../../../src/indexer/indexKeys.js";
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
});
