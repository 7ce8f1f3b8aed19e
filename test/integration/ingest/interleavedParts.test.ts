import { randomBytes } from "node:crypto";
import { type JetStreamClient, type JsMsg, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Effect, Fiber } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeChainRegistry } from "../../../src/chains/ChainRegistry.js";
import type { ChainsConfigFile } from "../../../src/chains/ChainsConfig.js";
import { ChainBlock, ChainTransaction } from "../../../src/domain/ChainBlock.js";
import { runIndexer } from "../../../src/indexer/Indexer.js";
import { publishBlocks } from "../../../src/ingest/BlockPublisher.js";
import { type EncodedBlock, encodeBlock } from "../../../src/ingest/encodedBlock.js";
import { IdleWatch } from "../../../src/webhooks/notifier/IdleWatch.js";
import { NotifierCursor } from "../../../src/webhooks/notifier/NotifierCursor.js";
import { makeMessagePlanner } from "../../../src/webhooks/notifier/planMessage.js";
import { plannerRecords } from "../../../src/webhooks/notifier/plannerRecords.js";
import type { QueuedDelivery } from "../../../src/webhooks/outbox/QueuedDelivery.js";
import { startBareNats } from "../../support/bareNats.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { blockHash, memoryDb } from "../../support/indexerBlocks.js";
import { memoryBlockRecords } from "../../support/memoryBlockRecords.js";
import { block, planner } from "../../support/notifierPlanning.js";
import { eventually } from "../../support/serviceHarness.js";

/*
 * A block message past the server's max_payload travels in parts, each its own message. Against a
 * real nats-server: the parts of one event are not consecutive in the stream when another chain's
 * ingest process publishes between them, or when a publish that failed part-way is retried (the
 * parts already stored are acknowledged as duplicates, the others land after whatever came
 * meanwhile). The indexer must apply every event, and the notifier plan each once with its own
 * data; parts written before parts were named, back to back, must still be read.
 */

/** Small enough that a block with 150 KB of calldata is cut into several parts. */
const MAX_PAYLOAD = 32 * 1024;

const registry = makeChainRegistry({
  chains: [testChainConfig(), testChainConfig({ chain_id: 2, name: "two" })],
} as unknown as ChainsConfigFile);

let bare: Awaited<ReturnType<typeof startBareNats>>;

beforeAll(async () => {
  bare = await startBareNats();
});

afterAll(async () => {
  await bare?.stop();
});

/** CHAIN_EVENTS made again, empty, with the service's duplicate window. */
const freshStream = async () => {
  const jsm = await jetstreamManager(bare.nc);
  await jsm.streams.delete("CHAIN_EVENTS").catch(() => undefined);
  await jsm.streams.add({ name: "CHAIN_EVENTS", subjects: ["chain.>"], duplicate_window: 120_000_000_000 });
  return jsm;
};

/** Block `number` of `chainId` paying from the watched wallet; `calldata` bytes of random input make it large. */
const walletBlock = (chainId: number, number: number, calldata = 0) => {
  const plain = block(
    number,
    true,
    `0x${chainId.toString(16).padStart(2, "0")}${blockHash(number).slice(4)}`,
  );
  const tx = plain.transactions[0]!;
  return ChainBlock.make({
    ...plain,
    chain_id: chainId,
    transactions: [ChainTransaction.make({ ...tx, input: `0x${randomBytes(calldata).toString("hex")}` })],
  });
};

/** Publishes one message of `encoded` by itself, as a publish attempt that stored only it would have. */
const publishOne = (js: JetStreamClient, encoded: EncodedBlock, i: number) =>
  js.publish(`chain.${encoded.chainId}.block`, encoded.messages[i]!.data, {
    msgID: encoded.messages[i]!.msgID,
    headers: encoded.messages[i]!.headers!,
  });

/** The stream's subjects, by sequence. */
const subjects = async (jsm: Awaited<ReturnType<typeof freshStream>>) => {
  const { last_seq } = (await jsm.streams.info("CHAIN_EVENTS")).state;
  const out: Array<string> = [];
  for (let seq = 1; seq <= last_seq; seq++)
    out.push((await jsm.streams.getMessage("CHAIN_EVENTS", { seq }))?.subject ?? "gone");
  return out;
};

/** Runs an indexer over the whole stream until `done` holds of the blocks it applied, in order. */
const indexUntil = async (done: (applied: ReadonlyArray<string>) => boolean) => {
  const applied: Array<string> = [];
  const indexer = Effect.runFork(
    runIndexer({
      nc: bare.nc,
      db: memoryDb(),
      registry,
      client: () => undefined,
      onApplied: (chainId, number) => applied.push(`${chainId}:${number}`),
    }),
  );
  try {
    await eventually(async () => done(applied), 10_000, "the indexer to apply every event");
  } finally {
    await Effect.runPromise(Fiber.interrupt(indexer));
  }
  return applied;
};

/** Has one notifier plan every message of the stream, in order; answers its deliveries and the errors it logged. */
const planAll = async () => {
  const jsm = await jetstreamManager(bare.nc);
  const { deps } = planner(memoryBlockRecords().store);
  const records = plannerRecords(deps.records, deps.now);
  const queued: Array<QueuedDelivery> = [];
  const errors: Array<string> = [];
  const plan = makeMessagePlanner({
    ports: {
      registry,
      enqueue: async (deliveries) => {
        queued.push(...deliveries);
        return [];
      },
      markDelivered: async () => undefined,
    },
    deps: { ...deps, records: records.store },
    records,
    idle: new IdleWatch(deps.now),
    chainIds: [1, 2],
    cursor: new NotifierCursor(),
  });
  const session = {
    jsm,
    epochMs: 0,
    recheck: { since: () => false, watch: () => Effect.void },
    log: { info: () => undefined, warning: () => undefined, error: (m: string) => void errors.push(m) },
  };
  const { last_seq } = (await jsm.streams.info("CHAIN_EVENTS")).state;
  const messages = await (await jetstream(bare.nc).consumers.get("CHAIN_EVENTS")).fetch({
    max_messages: last_seq,
    expires: 5_000,
  });
  for await (const message of messages as AsyncIterable<JsMsg>) {
    await plan(message, session);
    if (message.seq === last_seq) break;
  }
  return { queued, errors };
};

/** Each delivery as `<chain>:<block>`, checked to carry its own block's hash and transaction. */
const plannedBlocks = (queued: ReadonlyArray<QueuedDelivery>, blocks: ReadonlyArray<ChainBlock>) =>
  queued.map((d) => {
    const own = blocks.find((b) => b.chain_id === d.chain_id && b.number === d.block_number);
    expect(d.block_hash).toBe(own?.hash);
    expect(d.body).toContain(own!.transactions[0]!.hash);
    return `${d.chain_id}:${d.block_number}`;
  });

describe("a split chain event whose parts are not consecutive in the stream", { timeout: 60_000 }, () => {
  it("behavior: with another chain's block between its parts, the indexer applies both and the notifier plans each once", async () => {
    const jsm = await freshStream();
    const js = jetstream(bare.nc);
    const big = walletBlock(1, 5, 150_000);
    const next = walletBlock(1, 6, 16);
    const other = walletBlock(2, 9, 16);
    const encoded = encodeBlock(big, MAX_PAYLOAD);
    expect(encoded.messages.length).toBeGreaterThan(2);
    // Chain 1's publish stored its first part and failed; chain 2's ingest published meanwhile; the
    // retry publishes chain 1's batch again.
    const first = await publishOne(js, encoded, 0);
    await Effect.runPromise(publishBlocks(js, [encodeBlock(other, MAX_PAYLOAD)]));
    await Effect.runPromise(publishBlocks(js, [encoded, encodeBlock(next, MAX_PAYLOAD)]));
    expect((await subjects(jsm)).slice(0, 3)).toEqual(["chain.1.block", "chain.2.block", "chain.1.block"]);
    // A part published again is acknowledged with the sequence it was first stored at: the one the
    // last part names.
    expect(await publishOne(js, encoded, 0)).toMatchObject({ seq: first.seq, duplicate: true });
    const { last_seq } = (await jsm.streams.info("CHAIN_EVENTS")).state;
    const last = await jsm.streams.getMessage("CHAIN_EVENTS", { seq: last_seq - 1 });
    expect(last?.header.get("Svc-Part-Seqs").split(",")[0]).toBe(String(first.seq));

    const applied = await indexUntil((a) => a.includes("1:5") && a.includes("1:6") && a.includes("2:9"));
    expect(applied.filter((b) => b.startsWith("1:"))).toEqual(["1:5", "1:6"]);

    const { queued, errors } = await planAll();
    expect(plannedBlocks(queued, [big, next, other]).sort()).toEqual(["1:5", "1:6", "2:9"]);
    expect(errors).toEqual([]);
  });

  it("behavior: parts written before parts were named are read when consecutive, and never as another event when not", async () => {
    await freshStream();
    const js = jetstream(bare.nc);
    /** `chainBlock` encoded as ingest did before parts were named. */
    const unnamed = (chainBlock: ChainBlock) => {
      const encoded = encodeBlock(chainBlock, MAX_PAYLOAD);
      for (const message of encoded.messages) message.headers?.delete("Svc-Event");
      return encoded;
    };
    const readable = walletBlock(1, 5, 150_000);
    const consecutive = unnamed(readable);
    const interleaved = unnamed(walletBlock(1, 6, 150_000));
    const after = walletBlock(1, 7, 16);
    const other = walletBlock(2, 9, 16);
    for (const i of consecutive.messages.keys()) await publishOne(js, consecutive, i);
    await Effect.runPromise(publishBlocks(js, [encodeBlock(other, MAX_PAYLOAD)]));
    // The old publisher's retry of blocks 6 and 7, after its first attempt stored the first part of
    // 6 and all of 7: the rest of 6 lands after 7.
    await publishOne(js, interleaved, 0);
    await Effect.runPromise(publishBlocks(js, [encodeBlock(after, MAX_PAYLOAD)]));
    for (const i of interleaved.messages.keys()) await publishOne(js, interleaved, i);

    const applied = await indexUntil((a) => a.includes("1:7"));
    expect(applied).toEqual(["1:5", "2:9", "1:7"]);

    // Block 6 cannot be read (its parts were never named, and are not consecutive): dropped and said
    // so. It was read as block 7 before (whose records then kept it from being sent twice), and lost unsaid.
    const { queued, errors } = await planAll();
    expect(plannedBlocks(queued, [readable, after, other]).sort()).toEqual(["1:5", "1:7", "2:9"]);
    expect(errors).toEqual(["chain event cannot be planned; dropped"]);
  });
});
