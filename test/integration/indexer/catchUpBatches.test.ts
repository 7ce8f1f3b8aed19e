import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect, Fiber } from "effect";
import { Level } from "level";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeChainRegistry } from "../../../src/chains/ChainRegistry.js";
import { type ChainsConfigFile, ProtocolConfig } from "../../../src/chains/ChainsConfig.js";
import type { LogLike } from "../../../src/decoding/index.js";
import { BLOCK_MESSAGE_VERSION, ChainBlock, ChainLog } from "../../../src/domain/ChainBlock.js";
import { runIndexer, STREAM_SEQ_KEY } from "../../../src/indexer/Indexer.js";
import type { Db } from "../../../src/storage/Level.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually } from "../../support/serviceHarness.js";
import {
  ALICE,
  BOB,
  CAROL,
  EVENTS,
  encodeLog,
  FACTORY,
  PAIR,
  TOKEN_A,
  TOKEN_B,
  TOKEN_C,
  TX_HASH,
} from "../../unit/decoding/fixtures.js";

// A short finality depth, so undo records written early in a batch are deleted later in the same batch.
const chain = testChainConfig({
  protocols: [ProtocolConfig.make({ protocol: "UniswapV2", kind: "v2", address: FACTORY })],
});
const registry = makeChainRegistry({ chains: [chain] } as unknown as ChainsConfigFile);

const hash = (n: number, branch: string) => `0x${branch.repeat(2)}${n.toString(16).padStart(62, "0")}`;
const transfer = (token: string, from: string, to: string, logIndex: number) =>
  encodeLog(EVENTS.erc20Transfer, { from, to, value: 5n }, { address: token, logIndex, txHash: TX_HASH });
const block = (number: number, logs: ReadonlyArray<LogLike>, branch = "a") =>
  ChainBlock.make({
    version: BLOCK_MESSAGE_VERSION,
    chain_id: 1,
    number,
    hash: hash(number, branch),
    parent_hash: hash(number - 1, number - 1 >= 118 ? branch : "a"),
    timestamp: 1_700_000_000 + number * 12,
    source: "live",
    transactions: [],
    logs: logs.map((log) => ChainLog.make(log as ConstructorParameters<typeof ChainLog>[0])),
    internal_transfers: null,
  });

const TOKENS = [TOKEN_A, TOKEN_B, TOKEN_C];
const WALLETS = [ALICE, BOB, CAROL];

/**
 * 120 blocks whose views depend on the blocks before them: wallets touch tokens again and again (the
 * first block is kept), a pair is created, and a reorg replaces the last three blocks.
 */
const events = (): ReadonlyArray<{ readonly subject: string; readonly payload: unknown }> => {
  const out: Array<{ subject: string; payload: unknown }> = [];
  for (let n = 1; n <= 120; n++) {
    const logs = [
      transfer(TOKENS[n % 3]!, WALLETS[n % 3]!, WALLETS[(n + 1) % 3]!, 0),
      transfer(TOKENS[(n + 1) % 3]!, WALLETS[(n + 2) % 3]!, `0x${(n % 7).toString(16).padStart(40, "d")}`, 1),
    ];
    if (n === 30)
      logs.push(
        encodeLog(
          EVENTS.v2PairCreated,
          { token0: TOKEN_A, token1: TOKEN_B, pair: PAIR, allPairsLength: 1n },
          { address: FACTORY, logIndex: 2 },
        ),
      );
    out.push({ subject: "chain.1.block", payload: block(n, logs) });
  }
  out.push({
    subject: "chain.1.reorg",
    payload: {
      version: 1,
      chain_id: 1,
      common_ancestor: { number: 117, hash: hash(117, "a") },
      removed: [118, 119, 120].map((n) => ({ number: n, hash: hash(n, "a") })),
    },
  });
  for (let n = 118; n <= 121; n++)
    out.push({
      subject: "chain.1.block",
      payload: block(n, [transfer(TOKEN_C, `0x${n.toString(16).padStart(40, "e")}`, ALICE, 0)], "b"),
    });
  return out;
};

/** Every entry of the database, as sorted [key, value] pairs. */
const dump = async (db: Db) => {
  const entries: Array<[string, unknown]> = [];
  for await (const entry of db.iterator()) entries.push(entry as [string, unknown]);
  return entries;
};

let nats: TestNats;
let api: NatsConnection;
let dir: string;

beforeAll(async () => {
  nats = await startTestNats();
  api = await nats.connectAs("api");
  dir = await mkdtemp(join(tmpdir(), "svc-index-batches-"));
});

afterAll(async () => {
  await api?.close();
  await nats?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** A LevelDB of its own, counting the batches written to it. */
const openCounted = async (name: string) => {
  const db = new Level<string, unknown>(join(dir, name), { valueEncoding: "json" }) as unknown as Db;
  await db.open();
  let batches = 0;
  const batch = db.batch.bind(db) as (...args: Array<unknown>) => unknown;
  // Either form of batch: the indexer writes through a chained one (writeBatch.ts).
  (db as { batch: unknown }).batch = (...args: Array<unknown>) => {
    batches++;
    return batch(...args);
  };
  return { db, batches: () => batches };
};

const startIndexer = (db: Db, applied: Array<number>) =>
  Effect.runFork(
    runIndexer({
      nc: api,
      db,
      registry,
      client: () => undefined,
      onApplied: (_chain, number) => applied.push(number),
    }),
  );

describe("indexer catching up", { timeout: 120_000 }, () => {
  it("behavior: blocks applied in batches while catching up give the very index that applying them one by one gives", async () => {
    const js = jetstream(await nats.connectAs("ingest"));
    const all = events();

    // One by one: each event is applied before the next is published (a live chain).
    const live = await openCounted("live");
    const liveApplied: Array<number> = [];
    const liveIndexer = startIndexer(live.db, liveApplied);
    for (const [i, event] of all.entries()) {
      await js.publish(event.subject, JSON.stringify(event.payload));
      await eventually(
        async () => (await live.db.get(STREAM_SEQ_KEY)) === i + 1,
        20_000,
        `event ${i + 1} applied`,
      );
    }
    await Effect.runPromise(Fiber.interrupt(liveIndexer));

    // Caught up: every event is in the stream before the indexer starts.
    const caughtUp = await openCounted("caught-up");
    const caughtUpApplied: Array<number> = [];
    const catchingUp = startIndexer(caughtUp.db, caughtUpApplied);
    await eventually(
      async () => (await caughtUp.db.get(STREAM_SEQ_KEY)) === all.length,
      20_000,
      "every event applied",
    );
    await Effect.runPromise(Fiber.interrupt(catchingUp));

    expect(await dump(caughtUp.db)).toEqual(await dump(live.db));
    // The views a later block depends on: first touches kept, the pair indexed, the reorg undone.
    const entries = new Map(await dump(caughtUp.db));
    expect([...entries.keys()].some((key) => key.includes(PAIR))).toBe(true);
    expect([...entries.keys()].filter((key) => key.includes("!undo!")).length).toBeLessThanOrEqual(4);
    // Every block was reported applied, in order, and far fewer batches were written than events.
    expect(caughtUpApplied).toEqual(liveApplied);
    expect(live.batches()).toBe(all.length);
    expect(caughtUp.batches()).toBeLessThan(all.length / 10);
    await live.db.close();
    await caughtUp.db.close();
  });
});
