import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainBlock } from "../../../src/domain/ChainBlock.js";
import { encodeBlock } from "../../../src/ingest/encodedBlock.js";
import { initialStatus, RateMeter } from "../../../src/ingest/FollowerStatus.js";
import { acquireLease } from "../../../src/ingest/lease/ChainLease.js";
import { kvLeaseStore } from "../../../src/ingest/lease/LeaseStore.js";
import { makePublishedWindow } from "../../../src/ingest/publishedWindow.js";
import { startBareNats } from "../../support/bareNats.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { blocksOf, collectChainEvents } from "../../support/chainEvents.js";
import { blockHash, blockWithLogs } from "../../support/indexerBlocks.js";
import { eventually } from "../../support/serviceHarness.js";

/*
 * A chain that reorganises from block A to block B at the same height and back to A within
 * seconds, as a provider's load-balanced backends that disagree make it look, against a real
 * nats-server whose CHAIN_EVENTS drops a message id it saw in the last two minutes. A, published
 * again after the second reorg, must reach the stream: consumers reverted it on the first. So must
 * a third reorg, back to B, after the follower restarted from its lease in a real KV bucket.
 */

let bare: Awaited<ReturnType<typeof startBareNats>>;

beforeAll(async () => {
  bare = await startBareNats();
});

afterAll(async () => {
  await bare?.stop();
});

/** Block `n` of the other branch, on top of `parent`. */
const branchB = (n: number, parent: string) =>
  ChainBlock.make({
    ...blockWithLogs(n, []),
    hash: `0x${"bb"}${n.toString(16).padStart(62, "0")}`,
    parent_hash: parent,
  });

describe("a reorg away from a block and back", { timeout: 30_000 }, () => {
  it("behavior: the block published again after the second reorg reaches the stream, not dropped as a duplicate", async () => {
    const jsm = await jetstreamManager(bare.nc);
    await jsm.streams.add({ name: "CHAIN_EVENTS", subjects: ["chain.>"], duplicate_window: 120_000_000_000 });
    const events = await collectChainEvents(bare.nc);
    const chain = testChainConfig();
    const encode = (block: ChainBlock) => encodeBlock(block, 1024 * 1024);
    const a = blockWithLogs(11, []);
    const b = branchB(11, blockHash(10));
    /** The hash each height has on the node now: what the reorg's ancestor search reads. */
    let canonical = new Map<number, string>([[10, blockHash(10)]]);
    const store = kvLeaseStore(await new Kvm(bare.nc).create("chain_leases"));
    /** Runs `steps` as a follower holding the chain's lease, from the checkpoint the lease holds. */
    const asFollower = (
      steps: (published: ReturnType<typeof makePublishedWindow>) => Effect.Effect<void, unknown>,
    ) =>
      Effect.runPromise(
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
              lease.checkpoint ?? { window: [], historyUntil: 9, start: 10 },
            );
            yield* steps(published);
          }),
        ),
      );
    try {
      await asFollower((published) =>
        Effect.gen(function* () {
          yield* published.apply([encode(blockWithLogs(10, [])), encode(a)]);
          // The node shows B at 11, then a block on top of it.
          canonical = new Map([...canonical, [11, b.hash]]);
          yield* published.apply([encode(branchB(12, b.hash))]);
          yield* published.apply([encode(b), encode(branchB(12, b.hash))]);
          // And back to A.
          canonical = new Map([...canonical, [11, a.hash], [12, blockHash(12)]]);
          yield* published.apply([encode(blockWithLogs(12, []))]);
          yield* published.apply([encode(a), encode(blockWithLogs(12, []))]);
        }),
      );
      // Restarted from its lease, the follower sees the chain go back to B.
      await asFollower((published) =>
        Effect.gen(function* () {
          canonical = new Map([...canonical, [11, b.hash], [12, branchB(12, b.hash).hash]]);
          yield* published.apply([encode(branchB(13, branchB(12, b.hash).hash))]);
          yield* published.apply([
            encode(b),
            encode(branchB(12, b.hash)),
            encode(branchB(13, branchB(12, b.hash).hash)),
          ]);
        }),
      );
      const expected = [
        { kind: "block", hash: blockHash(10) },
        { kind: "block", hash: a.hash },
        { kind: "reorg", removed: [a.hash] },
        { kind: "block", hash: b.hash },
        { kind: "block", hash: branchB(12, b.hash).hash },
        { kind: "reorg", removed: [branchB(12, b.hash).hash, b.hash] },
        { kind: "block", hash: a.hash },
        { kind: "block", hash: blockHash(12) },
        { kind: "reorg", removed: [blockHash(12), a.hash] },
        { kind: "block", hash: b.hash },
        { kind: "block", hash: branchB(12, b.hash).hash },
        { kind: "block", hash: branchB(13, branchB(12, b.hash).hash).hash },
      ];
      const shown = () =>
        events.events.map((event) =>
          event.kind === "block"
            ? { kind: "block", hash: event.block.hash }
            : { kind: "reorg", removed: event.reorg.removed.map((r) => r.hash) },
        );
      await eventually(async () => shown().length >= expected.length, 10_000, "every message consumed");
      expect(shown()).toEqual(expected);
      expect(blocksOf(events.events).at(-1)?.number).toBe(13);
    } finally {
      await events.stop();
    }
  });
});
