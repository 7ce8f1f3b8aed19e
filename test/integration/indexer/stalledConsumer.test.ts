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
import { withDeafSubscriptions } from "../../support/deafSubscriptions.js";
import { blockWithLogs } from "../../support/indexerBlocks.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually } from "../../support/serviceHarness.js";

/*
 * The indexer's CHAIN_EVENTS consumer stalling without ending (after a nats-server is lost, its
 * messages stop reaching the client while the client still waits on it), against a real
 * nats-server and LevelDB: the indexer notices and reads on with a new consumer.
 */

const registry = makeChainRegistry({ chains: [testChainConfig()] } as unknown as ChainsConfigFile);
const block = (number: number) => blockWithLogs(number, []);

let nats: TestNats;
let dir: string;

beforeAll(async () => {
  nats = await startTestNats();
  dir = await mkdtemp(join(tmpdir(), "svc-index-stall-"));
});

afterAll(async () => {
  await nats?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe("indexer whose consumer stalls", { timeout: 60_000 }, () => {
  it("behavior: blocks published after the consumer stalled are applied, each once, through a new consumer", async () => {
    const js = jetstream(await nats.connectAs("ingest"));
    const db = new Level<string, unknown>(join(dir, "index"), { valueEncoding: "json" }) as unknown as Db;
    await db.open();
    const stallable = withDeafSubscriptions(await nats.connectAs("api"), { firstOnly: true });
    const applied: Array<number> = [];
    const indexer = Effect.runFork(
      runIndexer({
        nc: stallable.nc,
        db,
        registry,
        client: () => undefined,
        onApplied: (_chain, number) => applied.push(number),
        watchCheckMs: 1_000,
      }),
    );
    try {
      for (const n of [1, 2]) await js.publish("chain.1.block", JSON.stringify(block(n)));
      await eventually(async () => (await db.get(STREAM_SEQ_KEY)) === 2, 10_000, "the first blocks applied");

      // Still the first consumer: the stall below is what the indexer has to notice.
      expect(stallable.subscriptions()).toBe(1);
      stallable.deafen();
      for (const n of [3, 4]) await js.publish("chain.1.block", JSON.stringify(block(n)));
      await eventually(
        async () => (await db.get(STREAM_SEQ_KEY)) === 4,
        15_000,
        "the blocks published after the stall applied",
      );
      expect(applied).toEqual([1, 2, 3, 4]);
      expect(stallable.subscriptions()).toBeGreaterThanOrEqual(2);
    } finally {
      await Effect.runPromise(Fiber.interrupt(indexer));
      await db.close();
    }
  });
});
