import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE } from "../../../bench/replay/chainProfiles.js";
import { type ReplayNode, startReplayNode } from "../../../bench/replay/replayNode.js";
import { startBareNats } from "../../support/bareNats.js";
import { eventually } from "../../support/serviceHarness.js";
import { startTestFollower } from "../../support/testFollower.js";

/*
 * A chain whose blocks come on a schedule (a slot-timed chain, sped up: a block every 1.5 s), read
 * by a follower that polls the head every 100 ms at most. Once it has seen the chain's pace it asks
 * the node for the head less often between blocks, and still takes each block as it comes.
 */

const CHAIN_ID = 8453;
const POLL_MS = 100;
const BLOCK_MS = 1_500;
let bare: Awaited<ReturnType<typeof startBareNats>>;
let node: ReplayNode;

beforeAll(async () => {
  bare = await startBareNats();
  node = await startReplayNode({
    profile: { ...BASE, name: "slots", blockTimeMs: BLOCK_MS, txPerBlock: 4 },
    chainId: CHAIN_ID,
    firstBlock: 7_000,
    backlog: 1,
  });
});

afterAll(async () => {
  await node?.stop();
  await bare?.stop();
});

describe("ingest on a chain with a steady block time", { timeout: 90_000 }, () => {
  it("behavior: the head is polled about half as often between blocks, and every block is still taken at once", async () => {
    const jsm = await jetstreamManager(bare.nc);
    await jsm.streams.add({ name: "CHAIN_EVENTS", subjects: ["chain.>"] });
    const follower = startTestFollower({
      url: node.url,
      js: jetstream(bare.nc),
      chainId: CHAIN_ID,
      pollMs: POLL_MS,
    });
    const { status } = follower;
    const headPolls = () => node.stats().elements.eth_blockNumber ?? 0;
    try {
      await eventually(async () => status.mode === "live", 30_000, "the follower at the head");
      // The pacer trusts a pace shown over 8 blocks: 9 arrivals, and one more to be sure.
      const warmedAt = node.head() + 10;
      await eventually(async () => (status.processed ?? 0) >= warmedAt, 30_000, "ten more blocks");

      const from = { polls: headPolls(), block: status.processed ?? 0 };
      let worstBehindMs = 0;
      let behindSince: number | undefined;
      const until = from.block + 6;
      while ((status.processed ?? 0) < until) {
        const now = performance.now();
        if ((status.processed ?? 0) < node.head()) {
          behindSince ??= now;
          worstBehindMs = Math.max(worstBehindMs, now - behindSince);
        } else behindSince = undefined;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const pollsPerBlock = (headPolls() - from.polls) / ((status.processed ?? 0) - from.block);

      // Every 100 ms, a block every 1.5 s is 15 polls (16 with the one right after a block); paced,
      // about 9.
      expect(pollsPerBlock).toBeLessThan(12);
      // A block is taken within a poll or two of appearing, as at the base rate.
      expect(worstBehindMs).toBeLessThan(1_000);
    } finally {
      await follower.stop();
    }
  });
});
