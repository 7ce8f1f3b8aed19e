import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bucketStream, openBucket } from "../../../src/nats/JetStreamSetup.js";
import { PART_BYTES } from "../../../src/webhooks/notifier/BlockRecords.js";
import { kvBlockRecords, streamPurge } from "../../../src/webhooks/notifier/kvBlockRecords.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { block, planner, reorg } from "../../support/notifierPlanning.js";

let nats: TestNats;
const connections: Array<NatsConnection> = [];

beforeAll(async () => {
  nats = await startTestNats();
});

afterAll(async () => {
  await Promise.all(connections.map((nc) => nc.close()));
  await nats?.stop();
});

/** One API process's view of the records: its own `api` connection to the `webhook_blocks` bucket. */
const apiProcessRecords = async (sweepEvery?: number) => {
  const nc = await nats.connectAs("api");
  connections.push(nc);
  const kv = await Effect.runPromise(openBucket(nc, "webhook_blocks"));
  const jsm = await jetstreamManager(nc);
  const store = kvBlockRecords(kv, streamPurge(jsm), sweepEvery === undefined ? {} : { sweepEvery });
  return { store, jsm, kv };
};

/** The chain's events keys still in the bucket's stream. */
const storedEvents = async (jsm: Awaited<ReturnType<typeof jetstreamManager>>, chainId: number) =>
  Object.keys(
    (
      await jsm.streams.info(bucketStream("webhook_blocks"), {
        subjects_filter: `$KV.webhook_blocks.e.${chainId}.>`,
      })
    ).state.subjects ?? {},
  ).map((subject) => subject.replace("$KV.webhook_blocks.", ""));

describe("webhook block records shared through the webhook_blocks bucket", () => {
  it("behavior: a block one API process planned is released on confirmation and retracted by a reorg planned on another", async () => {
    const first = planner((await apiProcessRecords()).store);
    const second = planner((await apiProcessRecords()).store);
    const chain = testChainConfig({ chain_id: 1, confirmations: 2, finality_depth: 4 });
    expect(await first.apply(chain, block(100, true))).toEqual([]);
    expect(await second.apply(chain, block(101, false))).toEqual([]);
    expect(await second.apply(chain, block(102, false))).toEqual([
      { block: 100, removed: false, webhook: "W" },
    ]);
    // Planned again on the first process (a redelivered event), the release is not repeated.
    expect(await first.apply(chain, block(102, false))).toEqual([]);
    expect(await first.apply(chain, reorg([102, 101, 100]))).toEqual([
      { block: 100, removed: true, webhook: "W" },
    ]);
    expect(await second.apply(chain, block(100, false, `0x${"bb".repeat(32)}`))).toEqual([]);
  });

  it("behavior: a block whose events were stored but whose list write never came (a crash between them) is planned again as new, and its events read back as the replay wrote them", async () => {
    const { store } = await apiProcessRecords();
    const notifier = planner(store);
    const chain = testChainConfig({ chain_id: 1, confirmations: 0, finality_depth: 4 });
    const before = await store.read(chain.chain_id);
    // The notifier stores a block's events while its first sends are out; here it stops right after.
    const orphan = [
      {
        webhook_id: "W",
        team_id: "T",
        type: "transactions" as const,
        chain_id: 1,
        block_number: 200,
        block_hash: block(200, true).hash,
        events: [{ event_id: "stale" }, { event_id: "stale-2" }],
      },
    ];
    await store.writeEvents(chain.chain_id, {
      number: 200,
      hash: block(200, true).hash,
      released: true,
      events: orphan,
    });
    expect(await store.read(chain.chain_id)).toEqual(before);
    // The block is offered again: nothing names it, so its deliveries are planned as for a new block.
    expect(await notifier.apply(chain, block(200, true))).toEqual([
      { block: 200, removed: false, webhook: "W" },
    ]);
    const listed = (await store.read(chain.chain_id)).blocks.find((b) => b.number === 200)!;
    expect(listed).toMatchObject({ released: true, parts: 1 });
    const events = await store.events(chain.chain_id, listed);
    expect(events.map((e) => e.webhook_id)).toEqual(["W"]);
    expect(events[0]!.events.map((e) => (e as { event_id?: string }).event_id)).not.toContain("stale");
    // Retracted by a reorg like any recorded block.
    expect(await notifier.apply(chain, reorg([200]))).toEqual([{ block: 200, removed: true, webhook: "W" }]);
  });

  it("behavior: a block's events larger than one message are stored in parts and read back whole; dropped, they leave nothing in the stream", async () => {
    const { store, jsm } = await apiProcessRecords(1);
    const chainId = 7;
    const big = Array.from({ length: 3 }, (_, i) => ({
      event_id: String(i),
      data: "a".repeat(PART_BYTES / 2),
    }));
    const events = [
      {
        webhook_id: "W",
        team_id: "T",
        type: "transactions" as const,
        chain_id: chainId,
        block_number: 5,
        block_hash: "0x05",
        events: big,
      },
    ];
    await store.write({
      chainId,
      revision: 0,
      kept: [],
      added: { number: 5, hash: "0x05", released: true, events },
      dropped: [],
    });
    const listed = await store.read(chainId);
    expect(listed.blocks).toEqual([
      { number: 5, hash: "0x05", released: true, parts: 3, seq: expect.any(Number) },
    ]);
    expect(await store.events(chainId, listed.blocks[0]!)).toEqual(events);
    expect(await storedEvents(jsm, chainId)).toHaveLength(3);
    await store.write({
      chainId,
      revision: listed.revision,
      kept: [],
      added: undefined,
      dropped: listed.blocks,
    });
    await store.sweeps();
    expect(await storedEvents(jsm, chainId)).toEqual([]);
    expect((await store.read(chainId)).blocks).toEqual([]);
    // The list moved on: a write planned over the old revision is refused.
    await expect(
      store.write({ chainId, revision: listed.revision, kept: listed.blocks, added: undefined, dropped: [] }),
    ).rejects.toThrow(/wrong last sequence/);
  });

  it("behavior: dropped blocks' events are swept together once enough blocks were dropped, and the blocks still listed keep theirs", async () => {
    const { store, jsm } = await apiProcessRecords(3);
    const chainId = 8;
    const eventsOf = (number: number) => [
      {
        webhook_id: "W",
        team_id: "T",
        type: "transactions" as const,
        chain_id: chainId,
        block_number: number,
        block_hash: `0x${number}`,
        events: [{ event_id: String(number) }],
      },
    ];
    // A window of two blocks: each block added drops the one two below it.
    for (let number = 1; number <= 6; number++) {
      const before = await store.read(chainId);
      await store.write({
        chainId,
        revision: before.revision,
        kept: before.blocks.filter((b) => b.number > number - 2),
        added: { number, hash: `0x${number}`, released: true, events: eventsOf(number) },
        dropped: before.blocks.filter((b) => b.number <= number - 2),
      });
      await store.sweeps();
      // Blocks 1 to 3 are dropped by blocks 3 to 5: swept together when the third goes.
      if (number === 4)
        expect(await storedEvents(jsm, chainId)).toEqual([
          "e.8.1.0x1.0",
          "e.8.2.0x2.0",
          "e.8.3.0x3.0",
          "e.8.4.0x4.0",
        ]);
    }
    expect(await storedEvents(jsm, chainId)).toEqual(["e.8.4.0x4.0", "e.8.5.0x5.0", "e.8.6.0x6.0"]);
    const listed = await store.read(chainId);
    expect(listed.blocks.map((b) => b.number)).toEqual([5, 6]);
    for (const b of listed.blocks) expect(await store.events(chainId, b)).toEqual(eventsOf(b.number));
  });

  it("behavior: while the list names blocks recorded without their sequence, a dropped block's events are purged by its keys at once", async () => {
    const { store, jsm, kv } = await apiProcessRecords(16);
    const chainId = 9;
    const legacy = { number: 1, hash: "0x1", released: true, parts: 1 };
    await kv.put("e.9.1.0x1.0", new TextEncoder().encode(JSON.stringify([{ webhook_id: "W", events: [] }])));
    await kv.put("e.9.2.0x2.0", new TextEncoder().encode(JSON.stringify([{ webhook_id: "W", events: [] }])));
    const revision = await kv.create(
      "c.9",
      new TextEncoder().encode(JSON.stringify([legacy, { ...legacy, number: 2, hash: "0x2" }])),
    );
    await store.write({
      chainId,
      revision,
      kept: [{ ...legacy, number: 2, hash: "0x2" }],
      added: undefined,
      dropped: [legacy],
    });
    expect(await storedEvents(jsm, chainId)).toEqual(["e.9.2.0x2.0"]);
  });
});
