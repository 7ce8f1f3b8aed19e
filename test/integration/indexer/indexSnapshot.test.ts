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
import { type IndexTrimmed, STREAM_SEQ_KEY } from "../../../src/indexer/Indexer.js";
import { PREFIX } from "../../../src/indexer/indexKeys.js";
import { readSnapshotInfo } from "../../../src/indexer/snapshot/IndexSnapshotStore.js";
import { indexFingerprint } from "../../../src/indexer/snapshot/indexFingerprint.js";
import { restoreIndexIfBehind, settleIndexFingerprint } from "../../../src/indexer/snapshot/restoreIndex.js";
import { INDEX_END } from "../../../src/indexer/snapshot/snapshotFormat.js";
import { snapshotIfDue } from "../../../src/indexer/snapshot/snapshotSchedule.js";
import { provisionJetStream } from "../../../src/nats/provisionJetStream.js";
import type { Db } from "../../../src/storage/Level.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { blockWithLogs } from "../../support/indexerBlocks.js";
import { indexUntil as indexUntilSeq } from "../../support/indexUntil.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { EVENTS, encodeLog } from "../../unit/decoding/fixtures.js";

/*
 * Workers that join from a snapshot, against a real nats-server (its object store, a stream trimmed
 * by its byte bound) and real LevelDB: worker A indexes and writes a snapshot; the stream goes on
 * and drops its start; a new worker (empty DATA_DIR) and a worker whose last message the stream no
 * longer holds both start from A's snapshot, replay only what follows it, and end with A's index.
 */

const registry = makeChainRegistry({ chains: [testChainConfig()] } as unknown as ChainsConfigFile);
const fingerprint = indexFingerprint(registry);
const HOUR = 3_600_000;
const BLOCKS = 200;

let nats: TestNats;
let dir: string;

beforeAll(async () => {
  nats = await startTestNats();
  dir = await mkdtemp(join(tmpdir(), "svc-index-snapshot-"));
});

afterAll(async () => {
  await nats?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const hex40 = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

/** Block `n`: three ERC-20 transfers between wallets and tokens that vary with n, so the index grows. */
const block = (n: number) =>
  blockWithLogs(
    n,
    [0, 1, 2].map((i) =>
      encodeLog(
        EVENTS.erc20Transfer,
        { from: hex40(0x1000 + n), to: hex40(0x2000 + ((n * 7 + i) % 150)), value: BigInt(n * 10 + i) },
        {
          address: hex40(0xa000 + ((n + i) % 40)),
          logIndex: i,
          txHash: `0x${n.toString(16).padStart(64, "0")}`,
        },
      ),
    ),
  );

const publish = async (from: number, to: number) => {
  const js = jetstream(await nats.connectAs("ingest"));
  for (let n = from; n <= to; n++) await js.publish("chain.1.block", JSON.stringify(block(n)));
};

const jsm = async () => jetstreamManager(await nats.connectAs("api"));
const store = async () => new Objm(await nats.connectAs("api")).open("index_snapshots");

/** Runs the indexer over `db` until it has applied stream message `seq`; answers what it reported trimmed. */
const indexUntil = async (db: Db, seq: number): Promise<ReadonlyArray<IndexTrimmed>> =>
  (await indexUntilSeq(nats, db, registry, seq)).trimmed;

const levels: Array<Level<string, unknown>> = [];
const openLevel = async (name: string): Promise<Db> => {
  const level = new Level<string, unknown>(join(dir, name), { valueEncoding: "json" });
  await level.open();
  levels.push(level);
  return level as unknown as Db;
};
afterAll(async () => {
  for (const level of levels) await level.close();
});

/** Every index record, as stored. */
const indexRecords = async (db: Db) =>
  db.iterator({ gte: PREFIX, lt: INDEX_END, keyEncoding: "utf8", valueEncoding: "utf8" }).all();

describe("API workers that join from a snapshot", { timeout: 120_000 }, () => {
  let a: Db;
  let behind: Db;

  it("behavior: a worker writes a snapshot of its index only when the store has none as far along and recent", async () => {
    await Effect.runPromise(provisionJetStream(await nats.connectAs("provision"), { replicas: 1 }));
    await publish(1, 30);
    a = await openLevel("a");
    behind = await openLevel("behind");
    // As at an API worker's start: an empty index is recorded as built under this config.
    expect(await settleIndexFingerprint(a, fingerprint)).toEqual({ settled: "recorded" });
    await indexUntil(behind, 30);
    await publish(31, 100);
    await indexUntil(a, 100);
    const options = { db: a, store: await store(), jsm: await jsm(), fingerprint, intervalMs: HOUR };
    const now = Date.now();
    const look = await snapshotIfDue(options, now);
    expect(look).toMatchObject({ wrote: true, seq: 100, records: (await indexRecords(a)).length });
    expect((await readSnapshotInfo(options.store)).snapshot).toMatchObject({ seq: 100, fingerprint });
    // Nothing new to snapshot, and then a snapshot younger than the interval: no second write.
    expect(await snapshotIfDue(options, now)).toMatchObject({ wrote: false });
    await publish(101, 110);
    await indexUntil(a, 110);
    expect(await snapshotIfDue(options, now + 10 * 60_000)).toEqual({
      wrote: false,
      reason: "the stored snapshot is recent",
    });
  });

  it("behavior: the chunks of an upload a killed worker left unfinished are purged once they stop growing; the stored snapshot's and an upload in progress stay", async () => {
    const api = await nats.connectAs("api");
    const chunks = async () =>
      Object.keys(
        (
          await (
            await jsm()
          ).streams.info("OBJ_index_snapshots", { subjects_filter: "$O.index_snapshots.C.>" })
        ).state.subjects ?? {},
      );
    const stored = await chunks();
    expect(stored).toHaveLength(1);
    // A worker killed mid-upload: 3 chunks of 1 MiB under its version's subject, and no object names them.
    const abandoned = "$O.index_snapshots.C.KILLEDWRITER0000000000";
    for (let i = 0; i < 3; i++) await jetstream(api).publish(abandoned, new Uint8Array(1024 * 1024).fill(i));
    const options = { db: a, store: await store(), jsm: await jsm(), fingerprint, intervalMs: HOUR };
    // Its last chunk is a moment old: it may be an upload in progress.
    await snapshotIfDue(options, Date.now());
    expect((await chunks()).sort()).toEqual([...stored, abandoned].sort());
    await snapshotIfDue({ ...options, abandonedAfterMs: 0 }, Date.now());
    expect(await chunks()).toEqual(stored);
    // The stored snapshot is whole: the next test restores two workers from it.
  });

  it("behavior: a new worker and one the trimmed stream left behind start from the snapshot and end with the same index", async () => {
    await publish(111, BLOCKS);
    // Retention by bytes drops the stream's start: what the stream holds now begins after 30 and
    // at or before the snapshot's message 100.
    const state = (await (await jsm()).streams.info("CHAIN_EVENTS")).state;
    await Effect.runPromise(
      provisionJetStream(await nats.connectAs("provision"), {
        replicas: 1,
        chainEventsMaxBytes: Math.floor((state.bytes / BLOCKS) * 130),
      }),
    );
    const first = (await (await jsm()).streams.info("CHAIN_EVENTS")).state.first_seq;
    expect(first).toBeGreaterThan(31);
    expect(first).toBeLessThanOrEqual(101);

    const joining = await openLevel("joining");
    for (const db of [joining, behind]) {
      const outcome = await restoreIndexIfBehind(db, await store(), await jsm(), fingerprint);
      expect(outcome).toMatchObject({ restored: true, seq: 100 });
      // Only the stream after the snapshot is replayed, and nothing is missing from it.
      expect(await indexUntil(db, BLOCKS)).toEqual([]);
    }
    await indexUntil(a, BLOCKS);
    const expected = await indexRecords(a);
    expect(expected.length).toBeGreaterThan(500);
    expect(await indexRecords(joining)).toEqual(expected);
    expect(await indexRecords(behind)).toEqual(expected);
    // A worker up to date with the stream keeps its own index.
    expect(await restoreIndexIfBehind(a, await store(), await jsm(), fingerprint)).toMatchObject({
      restored: false,
    });
  });

  it("behavior: a snapshot of an earlier stream or of other chains is never used", async () => {
    const other = indexFingerprint(
      makeChainRegistry({
        chains: [{ ...testChainConfig(), stablecoins: [hex40(0xbeef)] }],
      } as unknown as ChainsConfigFile),
    );
    const empty = await openLevel("other-chains");
    expect(await restoreIndexIfBehind(empty, await store(), await jsm(), other)).toEqual({
      restored: false,
      applied: 0,
      reason: "the stored snapshot was written by a worker with other chains or protocols configured",
    });
    // The devnet's reset: CHAIN_EVENTS is made again, and its sequences mean other messages.
    const manager = await jetstreamManager(await nats.connectAs("provision"));
    await manager.streams.delete("CHAIN_EVENTS");
    await Effect.runPromise(provisionJetStream(await nats.connectAs("provision"), { replicas: 1 }));
    await publish(1, 5);
    expect(await restoreIndexIfBehind(empty, await store(), await jsm(), fingerprint)).toEqual({
      restored: false,
      applied: 0,
      reason: "the stored snapshot is of an earlier CHAIN_EVENTS stream",
    });
    expect(await (await openLevel("other-chains-2")).get(STREAM_SEQ_KEY)).toBeUndefined();
  });

  it("behavior: of two workers writing at once, one snapshot is stored and no chunk of the other is left", async () => {
    const db = await openLevel("fresh");
    await settleIndexFingerprint(db, fingerprint);
    await indexUntil(db, 5);
    const options = { db, store: await store(), jsm: await jsm(), fingerprint, intervalMs: HOUR };
    const other = { ...options, store: await store() };
    const looks = await Promise.all([snapshotIfDue(options, Date.now()), snapshotIfDue(other, Date.now())]);
    expect(looks.filter((look) => look.wrote)).toHaveLength(1);
    const info = await options.store.info("index");
    const stream = (await (await jsm()).streams.info("OBJ_index_snapshots")).state;
    // The stored object's chunks and its one metadata message, nothing else.
    expect(stream.messages).toBe(info!.chunks + 1);
  });
});
