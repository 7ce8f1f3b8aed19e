import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstream } from "@nats-io/jetstream";
import { Effect } from "effect";
import { Level } from "level";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeChainRegistry } from "../../../src/chains/ChainRegistry.js";
import type { ChainsConfigFile } from "../../../src/chains/ChainsConfig.js";
import { indexCheckpointKey, indexGapKey } from "../../../src/indexer/indexKeys.js";
import { provisionJetStream } from "../../../src/nats/provisionJetStream.js";
import type { Db } from "../../../src/storage/Level.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { blockHash, blockWithLogs } from "../../support/indexerBlocks.js";
import { indexUntil } from "../../support/indexUntil.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";

/*
 * Blocks ingest stored out of order (a step's pipelined publishes, one refused and later ones
 * stored) reach the index above a missing block: it records the gap, which widens every wallet's
 * log scan up to it. Ingest then repairs the order with a reorg back to the last block stored in
 * order and the blocks again (docs/ingestion.md), and the index must forget the gap those blocks
 * fill. Against a real nats-server and LevelDB.
 */

const registry = makeChainRegistry({ chains: [testChainConfig()] } as unknown as ChainsConfigFile);

let nats: TestNats;
let dir: string;

beforeAll(async () => {
  nats = await startTestNats();
  dir = await mkdtemp(join(tmpdir(), "svc-index-filled-gap-"));
  await Effect.runPromise(provisionJetStream(await nats.connectAs("provision"), { replicas: 1 }));
});

afterAll(async () => {
  await nats?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** A reorg of chain 1 back to block `ancestor`, removing `removed`. */
const reorgTo = (ancestor: number, removed: ReadonlyArray<number>) => ({
  version: 1,
  chain_id: 1,
  common_ancestor: { number: ancestor, hash: blockHash(ancestor) },
  removed: removed.map((n) => ({ number: n, hash: blockHash(n) })),
});

/**
 * Publishes `events` (block numbers, or reorgs) after what the stream holds, indexes the whole stream
 * into a LevelDB of its own, and answers what the indexer last told `onGap` (it tells each batch's
 * outcome, and how many blocks a batch takes depends on timing) and the gap it left recorded.
 */
const indexEvents = async (name: string, events: ReadonlyArray<number | ReturnType<typeof reorgTo>>) => {
  const js = jetstream(await nats.connectAs("ingest"));
  let last = 0;
  for (const event of events) {
    const ack =
      typeof event === "number"
        ? await js.publish("chain.1.block", JSON.stringify(blockWithLogs(event, [])))
        : await js.publish("chain.1.reorg", JSON.stringify(event));
    last = ack.seq;
  }
  const level = new Level<string, unknown>(join(dir, name), { valueEncoding: "json" });
  await level.open();
  const db = level as unknown as Db;
  try {
    const { gaps } = await indexUntil(nats, db, registry, last, 15_000);
    return {
      told: gaps.length === 0 ? "nothing" : gaps.at(-1),
      recorded: await db.get(indexGapKey(1)),
      checkpoint: await db.get(indexCheckpointKey(1)),
    };
  } finally {
    await level.close();
  }
};

describe("a gap the index recorded and the blocks after filled", { timeout: 60_000 }, () => {
  it("behavior: blocks stored out of order and repaired leave no gap recorded", async () => {
    const outcome = await indexEvents("repaired", [1, 2, 3, 5, reorgTo(3, [5]), 4, 5, 6]);
    expect(outcome.told).toBeUndefined();
    expect(outcome.recorded).toBeUndefined();
    expect(outcome.checkpoint).toEqual({ number: 6, hash: blockHash(6) });
  });

  it("edge: a gap is filled from its first block up, and stays recorded while blocks of it are missing", async () => {
    // The stream already holds the first test's events: this index applies them too, then these.
    const outcome = await indexEvents("partly", [10, reorgTo(6, [10]), 7]);
    expect(outcome.told).toEqual({ from: 8, to: 9 });
    expect(outcome.recorded).toEqual({ from: 8, to: 9 });
    expect(outcome.checkpoint).toEqual({ number: 7, hash: blockHash(7) });
  });
});
