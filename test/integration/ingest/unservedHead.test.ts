import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE } from "../../../bench/replay/chainProfiles.js";
import { type ReplayNode, startReplayNode } from "../../../bench/replay/replayNode.js";
import { startBareNats } from "../../support/bareNats.js";
import { startFlakyProxy } from "../../support/flakyProxy.js";
import { eventually } from "../../support/serviceHarness.js";
import { followedToHead, startTestFollower } from "../../support/testFollower.js";

/*
 * A node whose head is ahead of the blocks it serves: eth_blockNumber names a block that
 * eth_getBlockByNumber answers null for, as a provider's load-balanced backends do when they
 * disagree. The follower must wait for its next poll, not read the block again in a tight loop
 * (each read spends the provider's rate limit), and take the block once it is served.
 */

const CHAIN_ID = 8453;
const POLL_MS = 250;
let bare: Awaited<ReturnType<typeof startBareNats>>;
let node: ReplayNode;
let proxy: Awaited<ReturnType<typeof startFlakyProxy>>;
/** The replay node's clock: its head moves only when the test moves it. */
let clock = 1_800_000_000_000;

beforeAll(async () => {
  bare = await startBareNats();
  node = await startReplayNode({
    profile: BASE,
    chainId: CHAIN_ID,
    firstBlock: 5_000,
    backlog: 1,
    now: () => clock,
  });
  proxy = await startFlakyProxy(node.url);
});

afterAll(async () => {
  await proxy?.stop();
  await node?.stop();
  await bare?.stop();
});

describe("ingest and a head the node does not serve yet", { timeout: 60_000 }, () => {
  it("behavior: the follower polls for the block instead of asking again at once, and takes it once served", async () => {
    const jsm = await jetstreamManager(bare.nc);
    await jsm.streams.add({ name: "CHAIN_EVENTS", subjects: ["chain.>"] });
    const follower = startTestFollower({
      url: proxy.url,
      js: jetstream(bare.nc),
      chainId: CHAIN_ID,
      pollMs: POLL_MS,
    });
    const { status } = follower;
    try {
      const start = await followedToHead(status, node.head());
      // The next block shows in eth_blockNumber, and eth_getBlockByNumber answers null for it.
      const hidden = start + 1;
      proxy.answerNullWhen((body) => {
        const call = JSON.parse(body) as { method?: string; params?: ReadonlyArray<unknown> };
        return call.method === "eth_getBlockByNumber" && call.params?.[0] === `0x${hidden.toString(16)}`;
      });
      clock += BASE.blockTimeMs;
      expect(node.head()).toBe(hidden);
      const waitedMs = 2_000;
      await new Promise((resolve) => setTimeout(resolve, waitedMs));
      expect(status.processed).toBe(start);
      // About one read per poll; read again at once, it was asked for hundreds of times.
      expect(proxy.nulls()).toBeGreaterThan(0);
      expect(proxy.nulls()).toBeLessThanOrEqual(2 * (waitedMs / POLL_MS) + 2);
      // Served now: the follower takes it at its next poll.
      proxy.answerNullWhen(undefined);
      await eventually(async () => status.processed === hidden, 10_000, "the block once served");
    } finally {
      await follower.stop();
    }
  });
});
