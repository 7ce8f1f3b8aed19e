import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import type { JetStreamManager } from "@nats-io/jetstream";
import { jetstreamManager } from "@nats-io/jetstream";
import { type ObjectResult, type ObjectStore, Objm } from "@nats-io/obj";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect, Logger } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STREAM_SEQ_KEY } from "../../../src/indexer/Indexer.js";
import { indexCheckpointKey, PREFIX, walletTokenKey } from "../../../src/indexer/indexKeys.js";
import {
  readSnapshotInfo,
  SNAPSHOT_OBJECT,
  SnapshotStalled,
  writeSnapshot,
} from "../../../src/indexer/snapshot/IndexSnapshotStore.js";
import { INDEX_FINGERPRINT_KEY } from "../../../src/indexer/snapshot/indexFingerprint.js";
import {
  INDEX_STREAM_KEY,
  markOf,
  restoreIndexIfBehind,
  settleIndexFingerprint,
  startFromSnapshot,
} from "../../../src/indexer/snapshot/restoreIndex.js";
import {
  INDEX_END,
  RESTORING_KEY,
  restoreSnapshot,
  snapshotBytes,
} from "../../../src/indexer/snapshot/snapshotFormat.js";
import { snapshotIfDue } from "../../../src/indexer/snapshot/snapshotSchedule.js";
import type { Db } from "../../../src/storage/Level.js";
import { startBareNats } from "../../support/bareNats.js";
import { memoryDb } from "../../support/indexerBlocks.js";
import { eventually } from "../../support/serviceHarness.js";

/*
 * What keeps a worker from taking something else for an index, against a real nats-server's object
 * store: a restore killed partway, an index kept across a change of config, a download that never
 * ends because the snapshot was replaced under it.
 */

const HOUR = 3_600_000;
const OLD = "fingerprint-old";
const NEW = "fingerprint-new";

let nats: Awaited<ReturnType<typeof startBareNats>>;
let jsm: JetStreamManager;
let bucket = 0;

beforeAll(async () => {
  nats = await startBareNats();
  jsm = await jetstreamManager(nats.nc);
  await jsm.streams.add({ name: "CHAIN_EVENTS", subjects: ["chain.>"] });
});

afterAll(async () => {
  await nats?.stop();
});

/** A new, empty object store: each test its own. */
const freshStore = async (nc: NatsConnection = nats.nc): Promise<ObjectStore> =>
  new Objm(nc).create(`index_snapshots_${++bucket}`);

/** An index at stream message `seq`: a checkpoint that sorts early, and `wallets` wallet tokens after it. */
const indexAt = async (seq: number, wallets: number): Promise<Db> => {
  const db = memoryDb();
  await db.batch([
    { type: "put", key: indexCheckpointKey(1), value: { number: 1_000, hash: "0xabc" } },
    { type: "put", key: STREAM_SEQ_KEY, value: seq },
    ...Array.from({ length: wallets }, (_, i) => ({
      type: "put" as const,
      key: walletTokenKey(`0x${i.toString(16).padStart(40, "0")}`, 1, "0xtoken"),
      value: { block: i },
    })),
  ]);
  return db;
};

/** `indexAt`, applied from the test's CHAIN_EVENTS, as every index a worker snapshots records. */
const appliedIndexAt = async (seq: number, wallets: number): Promise<Db> => {
  const db = await indexAt(seq, wallets);
  await db.put(INDEX_STREAM_KEY, (await jsm.streams.info("CHAIN_EVENTS")).created);
  return db;
};

const gzipped = async (db: Db): Promise<Buffer> => {
  const parts: Array<Buffer> = [];
  for await (const part of (await snapshotBytes(db, STREAM_SEQ_KEY)).stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
};

/** The index's keys, but for the record of the stream it is applied from (any start writes it). */
const indexKeys = async (db: Db) =>
  (await db.keys({ gte: PREFIX, lt: INDEX_END }).all()).filter((key) => key !== INDEX_STREAM_KEY);

/** Runs `effect`, answering every line it logged as "LEVEL message". */
const logged = async <E>(effect: Effect.Effect<unknown, E>): Promise<ReadonlyArray<string>> => {
  const lines: Array<string> = [];
  const logger = Logger.make(({ logLevel, message }) => {
    lines.push(`${logLevel.label} ${Array.isArray(message) ? message.join(" ") : String(message)}`);
  });
  await Effect.runPromise(effect.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger))));
  return lines;
};

/** A JetStreamManager whose server cannot be reached. */
const unreachable = {
  streams: { info: () => Promise.reject(new Error("no route to the server")) },
} as unknown as JetStreamManager;

describe("a restore killed partway", () => {
  it("behavior: what it copied is cleared at the next start, whether or not a restore follows, and the outbox is kept", async () => {
    const bytes = await gzipped(await indexAt(42, 12_000));
    for (const [jsmAtStart, storeAtStart] of [
      // The store cannot be read: the worker replays the stream instead.
      [unreachable, await freshStore()],
      // The store holds no snapshot to restore.
      [jsm, await freshStore()],
    ] as const) {
      const db = memoryDb();
      await db.put("wh!q!hook!0000000000000001", { owed: true });
      // Killed once more than a batch (5,000 records) was written: the half copy has the chain's
      // checkpoint (it sorts first) but not the stream position (written last) nor most views. The
      // download then waits forever, as a killed process does: nothing of the restore runs again.
      let kill = (_: Error) => {};
      const killed = new Promise<never>((_, reject) => {
        kill = reject;
      });
      const download = async function* () {
        yield bytes.subarray(0, Math.floor(bytes.length * 0.6));
        yield await killed;
      };
      const restore = restoreSnapshot(db, download(), STREAM_SEQ_KEY).catch(() => "killed");
      await eventually(async () => (await db.get(indexCheckpointKey(1))) !== undefined, 5_000, "a half copy");
      expect(await db.get(STREAM_SEQ_KEY)).toBeUndefined();

      const lines = await logged(startFromSnapshot(db, storeAtStart, jsmAtStart, NEW));
      // Nothing of the half copy, so a replay from the stream's start skips no block.
      expect(await indexKeys(db)).toEqual([INDEX_FINGERPRINT_KEY]);
      expect(lines.some((line) => /WARN .*restore was interrupted: cleared/.test(line))).toBe(true);
      expect(await db.get("wh!q!hook!0000000000000001")).toEqual({ owed: true });
      kill(new Error("SIGKILL"));
      expect(await restore).toBe("killed");
    }
  });

  it("edge: a snapshot whose restore was cut short at two starts in a row is skipped at the next, which replays", async () => {
    const store = await freshStore();
    const source = await appliedIndexAt(20, 3);
    await settleIndexFingerprint(source, NEW);
    const streamCreated = (await jsm.streams.info("CHAIN_EVENTS")).created;
    await writeSnapshot(store, source, { streamCreated, fingerprint: NEW }, 0);
    const stored = (await readSnapshotInfo(store)).snapshot!;
    /** A worker whose last `tries` starts began restoring the stored snapshot and were killed. */
    const killedTwice = async (tries: number) => {
      const db = memoryDb();
      await db.batch([
        { type: "put", key: RESTORING_KEY, value: { snapshot: markOf(stored), tries } },
        { type: "put", key: indexCheckpointKey(1), value: { number: 1_000, hash: "0xabc" } },
      ]);
      return { db, lines: await logged(startFromSnapshot(db, store, jsm, NEW)) };
    };
    const skipped = await killedTwice(2);
    expect(
      skipped.lines.some((line) => /last 2 restores of the stored snapshot were cut short/.test(line)),
    ).toBe(true);
    expect(await skipped.db.get(STREAM_SEQ_KEY)).toBeUndefined();
    expect(await skipped.db.get(indexCheckpointKey(1))).toBeUndefined();
    expect(await skipped.db.get(RESTORING_KEY)).toBeUndefined();
    // Cut short once (a deploy's kill): tried again.
    const retried = await killedTwice(1);
    expect(await retried.db.get(STREAM_SEQ_KEY)).toBe(20);
    expect(await retried.db.get(RESTORING_KEY)).toBeUndefined();
  });

  it("edge: a failed restore whose clear fails too ends the start rather than leave part of a snapshot as the index", async () => {
    const store = await freshStore();
    // A snapshot without its stream position: its restore fails once its records are copied.
    await store.put(
      {
        name: SNAPSHOT_OBJECT,
        metadata: {
          seq: "20",
          stream_created: (await jsm.streams.info("CHAIN_EVENTS")).created,
          fingerprint: NEW,
        },
      },
      Readable.toWeb(
        Readable.from([gzipSync(`${indexCheckpointKey(1)}\t{"number":9,"hash":"0x9"}\n`)]),
      ) as ReadableStream<Uint8Array>,
    );
    const db = memoryDb();
    const clear = db.clear.bind(db);
    let clears = 0;
    (db as { clear: unknown }).clear = (...args: Parameters<Db["clear"]>) =>
      // The restore's own clears work; the one after the failure does not.
      ++clears > 2 ? Promise.reject(new Error("disk gone")) : clear(...args);
    const exit = await Effect.runPromiseExit(startFromSnapshot(db, store, jsm, NEW));
    expect(exit._tag).toBe("Failure");
    expect(String(exit)).toMatch(/could not be cleared after its restore failed/);
    expect(await db.get(RESTORING_KEY)).toBeDefined();
  });

  it("behavior: a restore that ends leaves no marker, and a store with none is not cleared", async () => {
    const db = memoryDb();
    await restoreSnapshot(db, Readable.from([await gzipped(await indexAt(42, 10))]), STREAM_SEQ_KEY);
    expect(await db.get(RESTORING_KEY)).toBeUndefined();
    await logged(startFromSnapshot(db, await freshStore(), jsm, NEW));
    expect(await db.get(STREAM_SEQ_KEY)).toBe(42);
    expect(await db.get(indexCheckpointKey(1))).toBeDefined();
  });
});

describe("an index kept across a change of config", () => {
  it("behavior: is not written as a snapshot under the new fingerprint, and the log says why", async () => {
    const db = memoryDb();
    // Built under the old config: recorded when it started empty.
    expect(await settleIndexFingerprint(db, OLD)).toEqual({ settled: "recorded" });
    await db.batch([
      { type: "put", key: STREAM_SEQ_KEY, value: 10 },
      { type: "put", key: indexCheckpointKey(1), value: { number: 10, hash: "0x1" } },
    ]);
    // The operator changes the chains config and restarts the worker, which keeps its DATA_DIR.
    const store = await freshStore();
    const lines = await logged(startFromSnapshot(db, store, jsm, NEW));
    expect(
      lines.some((line) => /WARN .*built under other chains.*writes no index snapshots/.test(line)),
    ).toBe(true);
    expect(await db.get(INDEX_FINGERPRINT_KEY)).toBe(OLD);
    const look = await snapshotIfDue({ db, store, jsm, fingerprint: NEW, intervalMs: HOUR }, Date.now());
    expect(look).toEqual({
      wrote: false,
      reason: "the index was built under other chains, protocols or index format",
    });
    expect((await readSnapshotInfo(store)).snapshot).toBeUndefined();
  });

  it("behavior: an index an earlier version built (no record) is taken to be of the current config once, and written under it", async () => {
    const db = await indexAt(10, 3);
    const store = await freshStore();
    const lines = await logged(startFromSnapshot(db, store, jsm, NEW));
    expect(lines.some((line) => /INFO .*taken to be this one's/.test(line))).toBe(true);
    expect(await settleIndexFingerprint(db, NEW)).toEqual({ settled: "same" });
    const look = await snapshotIfDue({ db, store, jsm, fingerprint: NEW, intervalMs: HOUR }, Date.now());
    expect(look).toMatchObject({ wrote: true, seq: 10 });
    expect((await readSnapshotInfo(store)).snapshot).toMatchObject({ seq: 10, fingerprint: NEW });
  });

  it("behavior: an index emptied since (cleared, or never built) is recorded under the current config", async () => {
    const db = memoryDb();
    await db.put(INDEX_FINGERPRINT_KEY, OLD);
    expect(await settleIndexFingerprint(db, NEW)).toEqual({ settled: "recorded" });
    expect(await db.get(INDEX_FINGERPRINT_KEY)).toBe(NEW);
  });

  it("behavior: a restored index carries the fingerprint of the snapshot it came from", async () => {
    const store = await freshStore();
    const source = await appliedIndexAt(20, 3);
    await settleIndexFingerprint(source, NEW);
    const streamCreated = (await jsm.streams.info("CHAIN_EVENTS")).created;
    await writeSnapshot(store, source, { streamCreated, fingerprint: NEW }, 0);
    const joining = memoryDb();
    await logged(startFromSnapshot(joining, store, jsm, NEW));
    expect(await joining.get(STREAM_SEQ_KEY)).toBe(20);
    expect(await joining.get(INDEX_FINGERPRINT_KEY)).toBe(NEW);
  });
});

/**
 * `store`, whose first `stalls` downloads give half their first chunk and then nothing, never
 * ending (as the store client's does when the object's chunks are purged under it); `meanwhile`
 * runs as each of them starts (another worker replacing the snapshot).
 */
const stallingStore = (
  store: ObjectStore,
  stalls: number,
  meanwhile: () => Promise<void> = async () => {},
) => {
  let downloads = 0;
  const get = async (name: string): Promise<ObjectResult | null> => {
    const result = await store.get(name);
    downloads += 1;
    if (result === null || downloads > stalls) return result;
    const reader = result.data.getReader();
    const first = await reader.read();
    await meanwhile();
    const data = new ReadableStream<Uint8Array>({
      start(controller) {
        if (!first.done) controller.enqueue(first.value.subarray(0, first.value.length >> 1));
      },
      cancel: () => reader.cancel(),
    });
    return { ...result, data };
  };
  return {
    store: { info: (name: string) => store.info(name), get } as unknown as ObjectStore,
    downloads: () => downloads,
  };
};

describe("a snapshot replaced while it downloads", { timeout: 15_000 }, () => {
  it("behavior: a download that stalls is given up and the restore starts again from the store's new snapshot", async () => {
    const store = await freshStore();
    const streamCreated = (await jsm.streams.info("CHAIN_EVENTS")).created;
    const first = await writeSnapshot(
      store,
      await appliedIndexAt(20, 50),
      { streamCreated, fingerprint: NEW },
      0,
    );
    const replace = async () => {
      const { revision } = await readSnapshotInfo(store);
      await writeSnapshot(store, await appliedIndexAt(30, 60), { streamCreated, fingerprint: NEW }, revision);
    };
    const stalling = stallingStore(store, 1, replace);
    const db = memoryDb();
    const outcome = await restoreIndexIfBehind(db, stalling.store, jsm, NEW, { stallMs: 200, attempts: 3 });
    expect(first.info.seq).toBe(20);
    expect(outcome).toMatchObject({ restored: true, seq: 30, records: 63, stalls: 1 });
    expect(stalling.downloads()).toBe(2);
    expect(await db.get(RESTORING_KEY)).toBeUndefined();
  });

  it("behavior: after a bounded number of stalled downloads the worker replays the stream from an empty index", async () => {
    const store = await freshStore();
    const streamCreated = (await jsm.streams.info("CHAIN_EVENTS")).created;
    await writeSnapshot(store, await appliedIndexAt(20, 50), { streamCreated, fingerprint: NEW }, 0);
    const stalling = stallingStore(store, Number.POSITIVE_INFINITY);
    const db = memoryDb();
    await expect(
      restoreIndexIfBehind(db, stalling.store, jsm, NEW, { stallMs: 100, attempts: 3 }),
    ).rejects.toBeInstanceOf(SnapshotStalled);
    expect(stalling.downloads()).toBe(3);
    expect(await indexKeys(db)).toEqual([]);

    const lines = await logged(
      startFromSnapshot(db, stalling.store, jsm, NEW, { stallMs: 100, attempts: 2 }),
    );
    expect(lines.some((line) => /WARN the index snapshot could not be read; replaying/.test(line))).toBe(
      true,
    );
    expect(stalling.downloads()).toBe(5);
    expect(await indexKeys(db)).toEqual([INDEX_FINGERPRINT_KEY]);
    expect((await store.info(SNAPSHOT_OBJECT))?.size).toBeGreaterThan(0);
  });
});

describe("an index of an earlier CHAIN_EVENTS stream", () => {
  it("behavior: an index applied from a stream created before the one there now is cleared at start; one with no record adopts this stream", async () => {
    const created = (await jsm.streams.info("CHAIN_EVENTS")).created;
    // Applied up to message 50 of a stream deleted since (its JetStream store lost).
    const earlier = await indexAt(50, 10);
    await earlier.put(INDEX_STREAM_KEY, "2020-01-01T00:00:00Z");
    const lines = await logged(startFromSnapshot(earlier, await freshStore(), jsm, NEW));
    expect(lines.some((line) => /WARN .*earlier CHAIN_EVENTS stream.*cleared/.test(line))).toBe(true);
    // Nothing of it is left to resume past the new stream's first 50 messages.
    expect(await earlier.get(STREAM_SEQ_KEY)).toBeUndefined();
    expect(await earlier.get(indexCheckpointKey(1))).toBeUndefined();
    expect(await earlier.get(INDEX_STREAM_KEY)).toBe(created);

    // An index from a version that kept no record is kept, and records this stream.
    const unrecorded = await indexAt(50, 10);
    await logged(startFromSnapshot(unrecorded, await freshStore(), jsm, NEW));
    expect(await unrecorded.get(STREAM_SEQ_KEY)).toBe(50);
    expect(await unrecorded.get(INDEX_STREAM_KEY)).toBe(created);
  });
});
