import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBareNats } from "../../support/bareNats.js";
import { blocksOf } from "../../support/chainEvents.js";
import { blockHash, blockWithLogs } from "../../support/indexerBlocks.js";
import { branchB, encode, publishedWindowOn, shownEvents } from "../../support/publishedWindowHarness.js";
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

describe("a reorg away from a block and back", { timeout: 30_000 }, () => {
  it("behavior: the block published again after the second reorg reaches the stream, not dropped as a duplicate", async () => {
    const a = blockWithLogs(11, []);
    const b = branchB(11, blockHash(10));
    /** The hash each height has on the node now: what the reorg's ancestor search reads. */
    let canonical = new Map<number, string>([[10, blockHash(10)]]);
    const { events, asFollower } = await publishedWindowOn(bare.nc, async (n) => canonical.get(n));
    const start = { window: [], historyUntil: 9, start: 10 };
    try {
      await asFollower(start, (published) =>
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
      await asFollower(start, (published) =>
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
      await eventually(
        async () => shownEvents(events).length >= expected.length,
        10_000,
        "every message consumed",
      );
      expect(shownEvents(events)).toEqual(expected);
      expect(blocksOf(events.events).at(-1)?.number).toBe(13);
    } finally {
      await events.stop();
    }
  });
});
