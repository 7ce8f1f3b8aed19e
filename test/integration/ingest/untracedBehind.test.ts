import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE } from "../../../bench/replay/chainProfiles.js";
import { type ReplayNode, startReplayNode } from "../../../bench/replay/replayNode.js";
import { startBareNats } from "../../support/bareNats.js";
import { blocksOf, collectChainEvents, collectedThrough } from "../../support/chainEvents.js";
import { type ProviderProxy, startProviderProxy } from "../../support/providerProxy.js";
import { eventually } from "../../support/serviceHarness.js";
import { followedToHead, startProbedFollower, startTestFollower } from "../../support/testFollower.js";

/*
 * A follower reading internal native transfers (traces) behind a full node: geth keeps every receipt
 * but the state of its last 128 blocks only, and a trace re-executes its block from that state. Once
 * ingest was stopped or slow for longer, the block's trace is refused while its receipts are not: the
 * follower must read such blocks without traces, say so, and trace again where the state is kept,
 * rather than ask for the trace forever while the chain runs away from it.
 */

const CHAIN_ID = 8453;
/** Blocks of state the node keeps below its head (geth: 128). */
const STATE_WINDOW = 100;
let bare: Awaited<ReturnType<typeof startBareNats>>;
let node: ReplayNode;
let geth: ProviderProxy;
/** The replay node's clock: its head moves only when the test moves it. */
let clock = 1_800_000_000_000;

beforeAll(async () => {
  bare = await startBareNats();
  node = await startReplayNode({
    profile: { ...BASE, traces: true },
    chainId: CHAIN_ID,
    firstBlock: 5_000,
    backlog: 1,
    now: () => clock,
  });
  geth = await startProviderProxy({ target: node.url, style: "geth", stateWindow: STATE_WINDOW });
  const jsm = await jetstreamManager(bare.nc);
  await jsm.streams.add({ name: "CHAIN_EVENTS", subjects: ["chain.>"] });
});

afterAll(async () => {
  await geth?.stop();
  await node?.stop();
  await bare?.stop();
});

describe("ingest with traces behind a node's state window", { timeout: 60_000 }, () => {
  it("behavior: blocks whose state is gone are read without traces and said so; the newest are traced again", async () => {
    const follower = startTestFollower({
      url: geth.url,
      js: jetstream(bare.nc),
      chainId: CHAIN_ID,
      pollMs: 100,
      traces: true,
    });
    const { status } = follower;
    const events = await collectChainEvents(bare.nc);
    try {
      const start = await followedToHead(status, node.head());
      // The chain moves 300 blocks at once: the state of block start + 1 is gone, its receipts are not.
      clock += 300 * BASE.blockTimeMs;
      const head = node.head();
      await collectedThrough(status, events.events, CHAIN_ID, head, 30_000);
      const untraced = status.blocks_untraced!;
      expect(untraced.from).toBe(start + 1);
      // Never probed: up to the first block whose state the node keeps, found by asking it.
      expect(untraced.to).toBe(head - STATE_WINDOW);
      const blocks = blocksOf(events.events).filter(
        (block) => block.chain_id === CHAIN_ID && block.number > start,
      );
      // Every block is published once, in order: none is skipped.
      expect(blocks.map((block) => block.number)).toEqual(
        Array.from({ length: head - start }, (_, i) => start + 1 + i),
      );
      for (const block of blocks)
        expect(block.internal_transfers === null, `block ${block.number}`).toBe(block.number <= untraced.to);
      expect(status.traces).toBe("on");
      expect(geth.stats().refusals.pruned).toBeGreaterThan(0);
    } finally {
      await events.stop();
      await follower.stop();
    }
  });

  it("behavior: behind two full nodes probed before their windows moved, each is asked, and only what neither keeps goes untraced", async () => {
    const own = await startReplayNode({
      profile: { ...BASE, traces: true },
      chainId: 10,
      firstBlock: 9_000,
      backlog: 1,
      now: () => clock,
    });
    // geth keeps little state, reth (here) twice as much: blocks go untraced only below reth's window.
    const full = [
      await startProviderProxy({ target: own.url, style: "geth", stateWindow: STATE_WINDOW }),
      await startProviderProxy({ target: own.url, style: "reth", stateWindow: 2 * STATE_WINDOW }),
    ];
    // Probed once, at the start: the probes' figures lie below every block the follower will trace.
    const follower = await startProbedFollower({
      urls: full.map((proxy) => proxy.url),
      js: jetstream(bare.nc),
      chainId: 10,
      probeIntervalMs: 600_000,
      traces: true,
    });
    const { status } = follower;
    const events = await collectChainEvents(bare.nc);
    try {
      const start = await followedToHead(status, own.head());
      clock += 300 * BASE.blockTimeMs;
      const head = own.head();
      // Within a minute even on a loaded machine (7 s alone under `npm run test:hog`, 17 s beside
      // another file), not at the next probe ten minutes on.
      await collectedThrough(status, events.events, 10, head, 60_000);
      expect(status.blocks_untraced).toEqual({ from: start + 1, to: head - 2 * STATE_WINDOW });
      const blocks = blocksOf(events.events).filter((block) => block.chain_id === 10 && block.number > start);
      expect(blocks.map((block) => block.number)).toEqual(
        Array.from({ length: head - start }, (_, i) => start + 1 + i),
      );
      for (const block of blocks)
        expect(block.internal_transfers === null, `block ${block.number}`).toBe(
          block.number <= head - 2 * STATE_WINDOW,
        );
    } finally {
      await events.stop();
      await follower.stop();
      for (const proxy of full) await proxy.stop();
      await own.stop();
    }
  });

  it("behavior: with an archive endpoint beside the full node, no block goes untraced, even while the archive is down", async () => {
    const archive = await startProviderProxy({ target: node.url, style: "anvil" });
    const follower = await startProbedFollower({
      urls: [geth.url, archive.url],
      js: jetstream(bare.nc),
      chainId: CHAIN_ID,
      probeIntervalMs: 300,
      traces: true,
    });
    const { status } = follower;
    const events = await collectChainEvents(bare.nc);
    try {
      const start = await followedToHead(status, node.head());
      await archive.down();
      const refused = geth.stats().refusals.pruned;
      clock += 300 * BASE.blockTimeMs;
      const head = node.head();
      await eventually(
        async () => geth.stats().refusals.pruned > refused && status.rpc_errors > 0,
        10_000,
        "the full node's refusals, failing the follower's reads",
      );
      expect(status.blocks_untraced).toBeUndefined();
      await archive.up();
      await collectedThrough(status, events.events, CHAIN_ID, head, 30_000);
      const blocks = blocksOf(events.events).filter(
        (block) => block.chain_id === CHAIN_ID && block.number > start,
      );
      expect(blocks.map((block) => block.number)).toEqual(
        Array.from({ length: head - start }, (_, i) => start + 1 + i),
      );
      expect(blocks.filter((block) => block.internal_transfers === null)).toEqual([]);
      expect(status.blocks_untraced).toBeUndefined();
    } finally {
      await events.stop();
      await follower.stop();
      await archive.stop();
    }
  });

  it("behavior: an endpoint that never answers holds a refused trace back for the hold only, then what the others lack goes untraced", async () => {
    const broken = await startProviderProxy({ target: node.url, style: "anvil" });
    // Down since the start: never probed, it never says whether it keeps the state. A hold of 3 s
    // (60 s by default, which the case above shows waiting) over retries that come further apart
    // each time (200 ms doubling): they must add up to one wait, not restart it.
    const HOLD_MS = 3_000;
    await broken.down();
    const follower = await startProbedFollower({
      urls: [geth.url, broken.url],
      js: jetstream(bare.nc),
      chainId: CHAIN_ID,
      probeIntervalMs: 600_000,
      traces: true,
      untraceHoldMs: HOLD_MS,
    });
    const { status } = follower;
    const events = await collectChainEvents(bare.nc);
    try {
      const start = await followedToHead(status, node.head());
      // Before the chain moves: the wait can only start after this.
      const moved = Date.now();
      clock += 300 * BASE.blockTimeMs;
      const head = node.head();
      await eventually(async () => status.blocks_untraced !== undefined, 30_000, "blocks untraced");
      expect(Date.now() - moved).toBeGreaterThanOrEqual(HOLD_MS);
      await collectedThrough(status, events.events, CHAIN_ID, head, 30_000);
      expect(status.blocks_untraced).toEqual({ from: start + 1, to: head - STATE_WINDOW });
      const blocks = blocksOf(events.events).filter(
        (block) => block.chain_id === CHAIN_ID && block.number > start,
      );
      expect(blocks.map((block) => block.number)).toEqual(
        Array.from({ length: head - start }, (_, i) => start + 1 + i),
      );
      for (const block of blocks)
        expect(block.internal_transfers === null, `block ${block.number}`).toBe(
          block.number <= head - STATE_WINDOW,
        );
    } finally {
      await events.stop();
      await follower.stop();
      await broken.stop();
    }
  });
});
