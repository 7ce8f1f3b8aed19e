import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstream } from "@nats-io/jetstream";
import { Effect, Fiber } from "effect";
import { Level } from "level";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeChainRegistry } from "../../../src/chains/ChainRegistry.js";
import type { ChainsConfigFile } from "../../../src/chains/ChainsConfig.js";
import { runIndexer, STREAM_SEQ_KEY } from "../../../src/indexer/Indexer.js";
import type { Db } from "../../../src/storage/Level.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { blockWithLogs } from "../../support/indexerBlocks.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually } from "../../support/serviceHarness.js";

/*
 * A LevelDB read that fails while the indexer starts (a disk error, a store being reopened) is an
 * error it restarts from, against a real nats-server and LevelDB: the index does not stop for good
 * while /healthz keeps answering from it.
 */

const registry = makeChainRegistry({ chains: [testChainConfig()] } as unknown as ChainsConfigFile);

let nats: TestNats;
let dir: string;

beforeAll(async () => {
  nats = await startTestNats();
  dir = await mkdtemp(join(tmpdir(), "svc-index-failed-read-"));
});

afterAll(async () => {
  await nats?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe("indexer whose store fails a read", { timeout: 60_000 }, () => {
  it("failure: the read of its stream position fails once; it restarts and applies every block", async () => {
    const js = jetstream(await nats.connectAs("ingest"));
    const level = new Level<string, unknown>(join(dir, "index"), { valueEncoding: "json" });
    await level.open();
    const db = level as unknown as Db;
    let failures = 1;
    const failingOnce = new Proxy(db, {
      get(target, property, receiver) {
        if (property === "get")
          return (key: string) => {
            if (key === STREAM_SEQ_KEY && failures > 0) {
              failures--;
              return Promise.reject(new Error("IO error: read failed"));
            }
            return target.get(key);
          };
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const applied: Array<number> = [];
    const indexer = Effect.runFork(
      runIndexer({
        nc: await nats.connectAs("api"),
        db: failingOnce,
        registry,
        client: () => undefined,
        onApplied: (_chain, number) => applied.push(number),
      }),
    );
    try {
      for (const n of [1, 2]) await js.publish("chain.1.block", JSON.stringify(blockWithLogs(n, [])));
      await eventually(async () => (await db.get(STREAM_SEQ_KEY)) === 2, 15_000, "the blocks applied");
      expect(failures).toBe(0);
      expect(applied).toEqual([1, 2]);
    } finally {
      await Effect.runPromise(Fiber.interrupt(indexer));
      await level.close();
    }
  });
});
