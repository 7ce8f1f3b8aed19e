import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBareNats } from "../../support/bareNats.js";
import { blocksOf } from "../../support/chainEvents.js";
import { blockWithLogs } from "../../support/indexerBlocks.js";
import { encode, publishedWindowOn } from "../../support/publishedWindowHarness.js";
import { eventually } from "../../support/serviceHarness.js";

/*
 * A window with nothing in it (a follower's first block, or after a skip or a reorg deeper than the
 * window) and a load-balanced node that answers nothing for the block due but serves the one above:
 * the block above must wait for the block due, or the block due is never published.
 */

let bare: Awaited<ReturnType<typeof startBareNats>>;

beforeAll(async () => {
  bare = await startBareNats();
});

afterAll(async () => {
  await bare?.stop();
});

describe("an empty window", { timeout: 30_000 }, () => {
  it("edge: a block above the one due is not published before it; once the block due is read, both are, in order", async () => {
    const { events, asFollower } = await publishedWindowOn(bare.nc, async () => undefined);
    try {
      const moved = await asFollower({ window: [], historyUntil: 9, start: 10 }, (published) =>
        Effect.gen(function* () {
          // Block 10 came back null and was left out of the range read; 11 was served.
          const early = yield* published.apply([encode(blockWithLogs(11, []))]);
          const next = published.next();
          const whole = yield* published.apply([
            encode(blockWithLogs(10, [])),
            encode(blockWithLogs(11, [])),
          ]);
          return { early, next, whole };
        }),
      );
      expect(moved).toEqual({ early: false, next: 10, whole: true });
      await eventually(async () => blocksOf(events.events).length >= 2, 10_000, "both blocks consumed");
      expect(blocksOf(events.events).map((b) => b.number)).toEqual([10, 11]);
    } finally {
      await events.stop();
    }
  });
});
