import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Objm } from "@nats-io/obj";
import { Effect } from "effect";
import { Level } from "level";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeChainRegistry } from "../../../src/chains/ChainRegistry.js";
import type { ChainsConfigFile } from "../../../src/chains/ChainsConfig.js";
import type { IndexTrimmed } from "../../../src/indexer/Indexer.js";
import {
  INDEX_STREAM_KEY,
  INDEX_TRIMMED_KEY,
  indexCheckpointKey,
  indexGapKey,
} from "../../../src/indexer/indexKeys.js";
import { indexFingerprint } from "../../../src/indexer/snapshot/indexFingerprint.js";
import { settleIndexFingerprint } from "../../../src/indexer/snapshot/restoreIndex.js";
import { snapshotIfDue } from "../../../src/indexer/snapshot/snapshotSchedule.js";
import { provisionJetStream } from "../../../src/nats/provisionJetStream.js";
import type { Db } from "../../../src/storage/Level.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { blockHash, blockWithLogs } from "../../support/indexerBlocks.js";
import { indexUntil as indexUntilSeq } from "../../support/indexUntil.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";

/*
 * CHAIN_EVENTS made again (deleted by hand, its JetStream store lost) while an API worker runs. Its
 * index's stream position names messages of the earlier stream: resumed there, it would skip as many
 * of the new stream's, and a snapshot of it labelled with the new stream would make every joining
 * worker skip them too. Against a real nats-server, object store and LevelDB.
 */

const registry = makeChainRegistry({ chains: [testChainConfig()] } as unknown as ChainsConfigFile);
const fingerprint = indexFingerprint(registry);

let nats: TestNats;
let dir: string;

beforeAll(async () => {
  nats = await startTestNats();
  dir = await mkdtemp(join(tmpdir(), "svc-index-recreated-"));
});

afterAll(async () => {
  await nats?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const provision = async () =>
  Effect.runPromise(provisionJetStream(await nats.connectAs("provision"), { replicas: 1 }));

const publish = async (numbers: ReadonlyArray<number>) => {
  const js = jetstream(await nats.connectAs("ingest"));
  for (const n of numbers) await js.publish("chain.1.block", JSON.stringify(blockWithLogs(n, [])));
};

/** Runs the indexer over `db` until it has applied stream message `seq`; answers what it reported missed. */
const indexUntil = async (db: Db, seq: number): Promise<ReadonlyArray<IndexTrimmed>> =>
  (await indexUntilSeq(nats, db, registry, seq, 15_000)).trimmed;

describe("an index whose CHAIN_EVENTS was made again", { timeout: 60_000 }, () => {
  it("behavior: the indexer reads the new stream from its start, records what it missed, and no snapshot is labelled with the new stream", async () => {
    await provision();
    await publish([1, 2, 3]);
    const level = new Level<string, unknown>(join(dir, "worker"), { valueEncoding: "json" });
    await level.open();
    const db = level as unknown as Db;
    try {
      expect(await settleIndexFingerprint(db, fingerprint)).toEqual({ settled: "recorded" });
      await indexUntil(db, 3);
      const manager = await jetstreamManager(await nats.connectAs("provision"));
      const earlier = (await manager.streams.info("CHAIN_EVENTS")).created;
      expect(await db.get(INDEX_STREAM_KEY)).toBe(earlier);

      await manager.streams.delete("CHAIN_EVENTS");
      await provision();
      const created = (await manager.streams.info("CHAIN_EVENTS")).created;
      expect(created).not.toBe(earlier);
      // Block 4 went to the earlier stream after this worker's last message, and is gone with it.
      await publish([5, 6]);

      // Before the indexer meets the new stream, its index is not written as a snapshot of it.
      const options = {
        db,
        store: await new Objm(await nats.connectAs("api")).open("index_snapshots"),
        jsm: await jetstreamManager(await nats.connectAs("api")),
        fingerprint,
        intervalMs: 3_600_000,
      };
      expect(await snapshotIfDue(options, Date.now())).toEqual({
        wrote: false,
        reason: `the index was applied from the CHAIN_EVENTS created ${earlier}, not the one created ${created}`,
      });

      const reported = await indexUntil(db, 2);
      // Told when met, and again once the index is past it (Indexer.ts, `retell`).
      const missed = { from: 4, to: 4, at: expect.any(Number), earlier_stream: earlier };
      expect(reported).toEqual([missed, missed]);
      expect(await db.get(INDEX_TRIMMED_KEY)).toEqual(reported[1]);
      expect(await db.get(INDEX_STREAM_KEY)).toBe(created);
      expect(await db.get(indexCheckpointKey(1))).toEqual({ number: 6, hash: blockHash(6) });
      expect(await db.get(indexGapKey(1))).toEqual({ from: 4, to: 4 });
      // Now of the new stream: written as its snapshot.
      expect(await snapshotIfDue(options, Date.now())).toMatchObject({ wrote: true, seq: 2 });
    } finally {
      await level.close();
    }
  });
});
