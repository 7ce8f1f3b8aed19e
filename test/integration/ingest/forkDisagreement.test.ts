import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Effect, Either } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BLOCK_MESSAGE_VERSION, ChainReorg } from "../../../src/domain/ChainBlock.js";
import { publishReorg } from "../../../src/ingest/BlockPublisher.js";
import { startBareNats } from "../../support/bareNats.js";
import { blockHash, blockWithLogs } from "../../support/indexerBlocks.js";
import { branchB, encode, publishedWindowOn, shownEvents } from "../../support/publishedWindowHarness.js";
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
    const a = blockWithLogs(11, []);
    const b = branchB(11, blockHash(10));
    let canonical = new Map<number, string>([
      [10, blockHash(10)],
      [11, a.hash],
    ]);
    const { events, asFollower } = await publishedWindowOn(bare.nc, async (n) => canonical.get(n));
    try {
      const outcomes = await asFollower({ window: [], historyUntil: 9, start: 10 }, (published) =>
        Effect.gen(function* () {
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
      await eventually(
        async () => shownEvents(events).length >= expected.length,
        10_000,
        "every message consumed",
      );
      expect(shownEvents(events)).toEqual(expected);
    } finally {
      await events.stop();
    }
  });
});
