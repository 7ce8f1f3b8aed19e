import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChainBlock } from "../../../src/domain/ChainBlock.js";
import { encodeBlock } from "../../../src/ingest/encodedBlock.js";
import { initialStatus, RateMeter } from "../../../src/ingest/FollowerStatus.js";
import { acquireLease } from "../../../src/ingest/lease/ChainLease.js";
import { kvLeaseStore } from "../../../src/ingest/lease/LeaseStore.js";
import { makePublishedWindow } from "../../../src/ingest/publishedWindow.js";
import { startBareNats } from "../../support/bareNats.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { blocksOf, collectChainEvents } from "../../support/chainEvents.js";
import { blockWithLogs } from "../../support/indexerBlocks.js";
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
    const jsm = await jetstreamManager(bare.nc);
    await jsm.streams.add({ name: "CHAIN_EVENTS", subjects: ["chain.>"], duplicate_window: 120_000_000_000 });
    const events = await collectChainEvents(bare.nc);
    const chain = testChainConfig();
    const encode = (block: ChainBlock) => encodeBlock(block, 1024 * 1024);
    const store = kvLeaseStore(await new Kvm(bare.nc).create("chain_leases"));
    try {
      const moved = await Effect.runPromise(
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
                canonicalHash: async () => undefined,
              },
              { window: [], historyUntil: 9, start: 10 },
            );
            // Block 10 came back null and was left out of the range read; 11 was served.
            const early = yield* published.apply([encode(blockWithLogs(11, []))]);
            const next = published.next();
            const whole = yield* published.apply([
              encode(blockWithLogs(10, [])),
              encode(blockWithLogs(11, [])),
            ]);
            return { early, next, whole };
          }),
        ),
      );
      expect(moved).toEqual({ early: false, next: 10, whole: true });
      await eventually(async () => blocksOf(events.events).length >= 2, 10_000, "both blocks consumed");
      expect(blocksOf(events.events).map((b) => b.number)).toEqual([10, 11]);
    } finally {
      await events.stop();
    }
  });
});
