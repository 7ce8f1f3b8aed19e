import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bucketStream, openBucket } from "../../../src/nats/JetStreamSetup.js";
import { PART_BYTES } from "../../../src/webhooks/notifier/BlockRecords.js";
import { kvBlockRecords } from "../../../src/webhooks/notifier/kvBlockRecords.js";
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
const apiProcessRecords = async () => {
  const nc = await nats.connectAs("api");
  connections.push(nc);
  const kv = await Effect.runPromise(openBucket(nc, "webhook_blocks"));
  const jsm = await jetstreamManager(nc);
  const store = kvBlockRecords(kv, async (filter) => {
    await jsm.streams.purge(bucketStream("webhook_blocks"), { filter: `$KV.webhook_blocks.${filter}` });
  });
  return { store, jsm };
};

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
    const { store, jsm } = await apiProcessRecords();
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
    expect(listed.blocks).toEqual([{ number: 5, hash: "0x05", released: true, parts: 3 }]);
    expect(await store.events(chainId, listed.blocks[0]!)).toEqual(events);
    const stored = async () =>
      (
        await jsm.streams.info(bucketStream("webhook_blocks"), {
          subjects_filter: `$KV.webhook_blocks.e.${chainId}.>`,
        })
      ).state.subjects ?? {};
    expect(Object.keys(await stored())).toHaveLength(3);
    await store.write({
      chainId,
      revision: listed.revision,
      kept: [],
      added: undefined,
      dropped: listed.blocks,
    });
    expect(await stored()).toEqual({});
    expect((await store.read(chainId)).blocks).toEqual([]);
    // The list moved on: a write planned over the old revision is refused.
    await expect(
      store.write({ chainId, revision: listed.revision, kept: listed.blocks, added: undefined, dropped: [] }),
    ).rejects.toThrow(/wrong last sequence/);
  });
});
