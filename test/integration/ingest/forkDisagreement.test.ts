import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { Effect, Either } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BLOCK_MESSAGE_VERSION, ChainBlock, ChainReorg } from "../../../src/domain/ChainBlock.js";
import { publishReorg } from "../../../src/ingest/BlockPublisher.js";
import { encodeBlock } from "../../../src/ingest/encodedBlock.js";
import { initialStatus, RateMeter } from "../../../src/ingest/FollowerStatus.js";
import { acquireLease } from "../../../src/ingest/lease/ChainLease.js";
import { kvLeaseStore } from "../../../src/ingest/lease/LeaseStore.js";
import { makePublishedWindow } from "../../../src/ingest/publishedWindow.js";
import { startBareNats } from "../../support/bareNats.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { collectChainEvents } from "../../support/chainEvents.js";
import { blockHash, blockWithLogs } from "../../support/indexerBlocks.js";
import { eventually } from "../../support/serviceHarness.js";

/*
 * Two endpoints on different forks for a while: the one that answers the ancestor search still
 * names block A, our tip, canonical, while a block built on its rival B was read from the other.
 * Nothing is removed, so no reorg may be published (an empty one, published again at every step,
 * kept the follower from moving on); once the nodes agree on B, one reorg removes A.
 */

let bare: Awaited<ReturnType<typeof startBareNats>>;

beforeAll(async () => {
  bare = await startBareNats();
});

afterAll(async () => {
  await bare?.stop();
});

const branchB = (n: number, parent: string) =>
  ChainBlock.make({
    ...blockWithLogs(n, []),
    hash: `0x${"bb"}${n.toString(16).padStart(62, "0")}`,
    parent_hash: parent,
  });

describe("endpoints on different forks", { timeout: 30_000 }, () => {
  it("behavior: a deeper reorg removing the same newest block (found on a resume) is stored, not dropped as the first one's duplicate", async () => {
    const jsm = await jetstreamManager(bare.nc);
    await jsm.streams.add({ name: "REORG_IDS", subjects: ["chain.7.>"], duplicate_window: 120_000_000_000 });
    const js = jetstream(bare.nc);
    try {
      const reorg = (ancestor: number, removed: ReadonlyArray<number>) =>
        ChainReorg.make({
          version: BLOCK_MESSAGE_VERSION,
          chain_id: 7,
          common_ancestor: { number: ancestor, hash: blockHash(ancestor) },
          removed: removed.map((n) => ({ number: n, hash: blockHash(n) })),
        });
      const acks = await Effect.runPromise(
        Effect.all([
          publishReorg(js, reorg(10, [12, 11]), 3),
          // The same reorg again, as after a crash before its save: a duplicate.
          publishReorg(js, reorg(10, [12, 11]), 3),
          // Deeper, same epoch: the resume found an older ancestor.
          publishReorg(js, reorg(8, [12, 11, 10, 9]), 3),
        ]),
      );
      expect(acks.map((ack) => ack.duplicate)).toEqual([false, true, false]);
      expect((await jsm.streams.info("REORG_IDS")).state.messages).toBe(2);
    } finally {
      await jsm.streams.delete("REORG_IDS");
    }
  });

  it("behavior: a block off our tip while the node names the tip canonical publishes no reorg; once the nodes agree, one", async () => {
    const jsm = await jetstreamManager(bare.nc);
    await jsm.streams.add({ name: "CHAIN_EVENTS", subjects: ["chain.>"], duplicate_window: 120_000_000_000 });
    const events = await collectChainEvents(bare.nc);
    const chain = testChainConfig();
    const encode = (block: ChainBlock) => encodeBlock(block, 1024 * 1024);
    const a = blockWithLogs(11, []);
    const b = branchB(11, blockHash(10));
    let canonical = new Map<number, string>([
      [10, blockHash(10)],
      [11, a.hash],
    ]);
    const store = kvLeaseStore(await new Kvm(bare.nc).create("chain_leases"));
    try {
      const outcomes = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const lease = yield* acquireLease(store, "chain.1", "test", { leaseMs: 60_000 });
            const published = makePublishedWindow(
              {
                chain,
                js: jetstream(bare.nc),
                lease,
                status: initialStatus(1, chain.name),
                meter: new RateMeter(),
                canonicalHash: async (n) => canonical.get(n),
              },
              { window: [], historyUntil: 9, start: 10 },
            );
            yield* published.apply([encode(blockWithLogs(10, [])), encode(a)]);
            // Read from the endpoint on B's fork, while the one asked still names A.
            const disagreeing = [];
            for (let step = 0; step < 3; step++)
              disagreeing.push(yield* Effect.either(published.apply([encode(branchB(12, b.hash))])));
            canonical = new Map([...canonical, [11, b.hash]]);
            const agreed = yield* published.apply([encode(branchB(12, b.hash))]);
            yield* published.apply([encode(b), encode(branchB(12, b.hash))]);
            return { disagreeing, agreed };
          }),
        ),
      );
      for (const outcome of outcomes.disagreeing) {
        expect(Either.isLeft(outcome)).toBe(true);
        expect(String(Either.isLeft(outcome) ? outcome.left : "")).toMatch(/endpoints on different forks/);
      }
      expect(outcomes.agreed).toBe(true);
      const expected = [
        { kind: "block", hash: blockHash(10) },
        { kind: "block", hash: a.hash },
        { kind: "reorg", removed: [a.hash] },
        { kind: "block", hash: b.hash },
        { kind: "block", hash: branchB(12, b.hash).hash },
      ];
      const shown = () =>
        events.events.map((event) =>
          event.kind === "block"
            ? { kind: "block", hash: event.block.hash }
            : { kind: "reorg", removed: event.reorg.removed.map((r) => r.hash) },
        );
      await eventually(async () => shown().length >= expected.length, 10_000, "every message consumed");
      expect(shown()).toEqual(expected);
    } finally {
      await events.stop();
    }
  });
});
