import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Effect } from "effect";
import { Level } from "level";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeChainRegistry } from "../../../src/chains/ChainRegistry.js";
import type { ChainsConfigFile } from "../../../src/chains/ChainsConfig.js";
import { type IndexTrimmed, STREAM_SEQ_KEY } from "../../../src/indexer/Indexer.js";
import {
  INDEX_TRIMMED_KEY,
  indexChainTrimmedKey,
  indexCheckpointKey,
  indexGapKey,
} from "../../../src/indexer/indexKeys.js";
import { provisionJetStream } from "../../../src/nats/provisionJetStream.js";
import type { Db } from "../../../src/storage/Level.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { blockHash, blockWithLogs } from "../../support/indexerBlocks.js";
import { indexUntil } from "../../support/indexUntil.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";

/*
 * A worker whose last indexed message CHAIN_EVENTS no longer holds (its byte bound dropped the
 * messages after it while the worker was down), against a real nats-server and LevelDB: the indexer
 * says so, records it for discovery, and indexes on from the stream's first message.
 */

const registry = makeChainRegistry({ chains: [testChainConfig()] } as unknown as ChainsConfigFile);

let nats: TestNats;
let dir: string;

beforeAll(async () => {
  nats = await startTestNats();
  dir = await mkdtemp(join(tmpdir(), "svc-index-trimmed-"));
});

afterAll(async () => {
  await nats?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/**
 * Runs the indexer over `db` until it has applied the whole stream (its `last` message), and answers
 * what it reported as trimmed.
 */
const indexToTheEnd = async (db: Db, last = 200): Promise<ReadonlyArray<IndexTrimmed>> =>
  (await indexUntil(nats, db, registry, last, 15_000)).trimmed;

/**
 * A trim is told when it is met and again, later, once the batch that takes the index past it is
 * written: a wallet swept in between read the index from before the gap (Indexer.ts, `retell`).
 */
const expectToldTwice = (reported: ReadonlyArray<IndexTrimmed>, what: Omit<IndexTrimmed, "at">) => {
  expect(reported).toEqual([
    { ...what, at: expect.any(Number) },
    { ...what, at: expect.any(Number) },
  ]);
  expect(reported[1]!.at).toBeGreaterThanOrEqual(reported[0]!.at);
};

/** The stream's first sequence now. */
const firstSeq = async () =>
  (await (await jetstreamManager(await nats.connectAs("api"))).streams.info("CHAIN_EVENTS")).state.first_seq;

/** A LevelDB of its own, closed after `use`. */
const withLevel = async (name: string, use: (db: Db) => Promise<void>) => {
  const level = new Level<string, unknown>(join(dir, name), { valueEncoding: "json" });
  await level.open();
  try {
    await use(level as unknown as Db);
  } finally {
    await level.close();
  }
};

describe("an index behind a trimmed stream", { timeout: 60_000 }, () => {
  it("behavior: the indexer reports the messages it missed, records them, and indexes on from the stream's first", async () => {
    await Effect.runPromise(
      provisionJetStream(await nats.connectAs("provision"), { replicas: 1, chainEventsMaxBytes: 24 * 1024 }),
    );
    const js = jetstream(await nats.connectAs("ingest"));
    for (let n = 1; n <= 200; n++) await js.publish("chain.1.block", JSON.stringify(blockWithLogs(n, [])));
    const first = await firstSeq();
    expect(first).toBeGreaterThan(4);
    await withLevel("index", async (db) => {
      // This worker indexed blocks 1-3 before it stopped.
      await db.batch([
        { type: "put", key: STREAM_SEQ_KEY, value: 3 },
        { type: "put", key: indexCheckpointKey(1), value: { number: 3, hash: blockHash(3) } },
      ]);
      const reported = await indexToTheEnd(db);
      expectToldTwice(reported, { from: 4, to: first - 1 });
      expect(await db.get(INDEX_TRIMMED_KEY)).toEqual(reported[1]);
      expect(await db.get(indexCheckpointKey(1))).toEqual({ number: 200, hash: blockHash(200) });
      // The chain's blocks it jumped over, for wallets' log scans to read.
      expect(await db.get(indexGapKey(1))).toEqual({ from: 4, to: first - 1 });
    });
  });

  it("behavior: a new worker joining after the stream's start was dropped reports that it lacks it", async () => {
    const first = await firstSeq();
    await withLevel("joining", async (db) => {
      expectToldTwice(await indexToTheEnd(db), { from: 1, to: first - 1 });
      // Everything before its first block of the chain may be what the stream dropped.
      expect(await db.get(indexGapKey(1))).toEqual({ from: 0, to: first - 1 });
    });
  });

  it("behavior: blocks ingest never published (its nodes had pruned them) are reported and recorded as the chain's", async () => {
    const js = jetstream(await nats.connectAs("ingest"));
    // Ingest read on from block 260: blocks 202-259 were pruned before it got to them.
    for (const n of [201, 260, 261]) await js.publish("chain.1.block", JSON.stringify(blockWithLogs(n, [])));
    await withLevel("index", async (db) => {
      // What the first case recorded of the stream's trim, which every chain reads.
      const streamTrim = await db.get(INDEX_TRIMMED_KEY);
      expect(streamTrim).toMatchObject({ from: 4 });
      const reported = await indexToTheEnd(db, 203);
      expectToldTwice(reported, { chain_id: 1, from: 202, to: 259 });
      // Kept as the chain's own: no other chain's wallets are discovered again for it.
      expect(await db.get(indexChainTrimmedKey(1))).toEqual(reported[1]);
      expect(await db.get(INDEX_TRIMMED_KEY)).toEqual(streamTrim);
      expect(await db.get(indexCheckpointKey(1))).toEqual({ number: 261, hash: blockHash(261) });
      expect(await db.get(indexGapKey(1))).toEqual({ from: 4, to: 259 });
    });
  });

  it("behavior: on two chains, the trim is told again at each chain's first block after it, the slower chain's last", async () => {
    const twoChains = makeChainRegistry({
      chains: [testChainConfig(), testChainConfig({ chain_id: 2, name: "second" })],
    } as unknown as ChainsConfigFile);
    // Chain 2's only block comes after 110 of chain 1's: batches of 100 at most put it in a later one,
    // in a stream bound that holds them all.
    await Effect.runPromise(
      provisionJetStream(await nats.connectAs("provision"), { replicas: 1, chainEventsMaxBytes: 64 * 1024 }),
    );
    const js = jetstream(await nats.connectAs("ingest"));
    for (let n = 262; n < 372; n++) await js.publish("chain.1.block", JSON.stringify(blockWithLogs(n, [])));
    const last = (
      await js.publish("chain.2.block", JSON.stringify({ ...blockWithLogs(50, []), chain_id: 2 }))
    ).seq;
    await withLevel("two-chains", async (db) => {
      // A worker that indexed messages 1-3 before it stopped; the stream has since dropped 4 to its first.
      await db.batch([
        { type: "put", key: STREAM_SEQ_KEY, value: 3 },
        { type: "put", key: indexCheckpointKey(1), value: { number: 3, hash: blockHash(3) } },
      ]);
      // What the index held of chain 2 at each report (read as it is made).
      const chainTwoAt: Array<Promise<unknown>> = [];
      const reported = (
        await indexUntil(nats, db, twoChains, last, 15_000, () => {
          chainTwoAt.push(db.get(indexCheckpointKey(2)));
        })
      ).trimmed;
      expect(reported.length).toBeGreaterThanOrEqual(3);
      // The last report came once chain 2's first block after the trim was in the index.
      expect(await chainTwoAt.at(-1)).toEqual({ number: 50, hash: blockHash(50) });
      expect(await db.get(INDEX_TRIMMED_KEY)).toEqual(reported.at(-1));
    });
  });
  it("behavior: a chain's missed blocks met while another chain waits for its first block after a trim are told apart, and the trim is still told again at that block", async () => {
    const chains = makeChainRegistry({
      chains: [1, 2, 3].map((chainId) => testChainConfig({ chain_id: chainId, name: `chain_${chainId}` })),
    } as unknown as ChainsConfigFile);
    const js = jetstream(await nats.connectAs("ingest"));
    // Chain 1 goes on from block 372, and its blocks 381-399 were never published; chain 3's
    // first block comes last.
    for (const n of [...Array.from({ length: 9 }, (_, i) => 372 + i), 400, 401])
      await js.publish("chain.1.block", JSON.stringify(blockWithLogs(n, [])));
    const last = (await js.publish("chain.3.block", JSON.stringify({ ...blockWithLogs(7, []), chain_id: 3 })))
      .seq;
    expect(await firstSeq()).toBeGreaterThan(4);
    await withLevel("missed-while-excused", async (db) => {
      // A worker that indexed messages 1-3 before it stopped; the stream has since dropped 4 on.
      await db.batch([
        { type: "put", key: STREAM_SEQ_KEY, value: 3 },
        { type: "put", key: indexCheckpointKey(1), value: { number: 3, hash: blockHash(3) } },
      ]);
      // What the index held of chain 3 at each report (read as it is made).
      const chainThreeAt: Array<Promise<unknown>> = [];
      const reported = (
        await indexUntil(nats, db, chains, last, 15_000, () => {
          chainThreeAt.push(db.get(indexCheckpointKey(3)));
        })
      ).trimmed;
      const first = reported[0]!;
      expect(first.chain_id).toBeUndefined();
      // Chain 1's own report, at once and again at its batch's flush (the stream may still hold
      // its earlier jump, 202-259, reported the same way).
      expect(reported.filter((r) => r.chain_id !== undefined && r.chain_id !== 1)).toEqual([]);
      expect(reported.filter((r) => r.chain_id === 1 && r.from === 381)).toEqual([
        { chain_id: 1, from: 381, to: 399, at: expect.any(Number) },
        { chain_id: 1, from: 381, to: 399, at: expect.any(Number) },
      ]);
      // The stream's trim, told again once chain 3's first block after it is in the index.
      const lastTrim = reported.findLastIndex((r) => r.chain_id === undefined);
      expect(reported[lastTrim]).toEqual({ from: first.from, to: first.to, at: expect.any(Number) });
      expect(await chainThreeAt[lastTrim]).toEqual({ number: 7, hash: blockHash(7) });
      expect(await db.get(INDEX_TRIMMED_KEY)).toEqual(reported[lastTrim]);
      expect(await db.get(indexChainTrimmedKey(1))).toMatchObject({ chain_id: 1, from: 381, to: 399 });
    });
  });
});
