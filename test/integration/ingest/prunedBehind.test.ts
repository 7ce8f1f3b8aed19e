import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE } from "../../../bench/replay/chainProfiles.js";
import { type ReplayNode, startReplayNode } from "../../../bench/replay/replayNode.js";
import type { FollowerStatus } from "../../../src/ingest/FollowerStatus.js";
import { startBareNats } from "../../support/bareNats.js";
import {
  blockNumbersOf,
  type ChainEvent,
  collectChainEvents,
  collectedThrough,
} from "../../support/chainEvents.js";
import { type ProviderProxy, startProviderProxy } from "../../support/providerProxy.js";
import { eventually } from "../../support/serviceHarness.js";
import { followedToHead, startProbedFollower, startTestFollower } from "../../support/testFollower.js";

/*
 * A follower that falls further behind than its node keeps receipts: a reth full node keeps the
 * last blocks only (here 40; 10,064 on a real one, half an hour of a 200 ms chain), so once ingest
 * was stopped or slow for longer, the next block it needs is refused as pruned history. It must
 * read on from the first block the node keeps and say which it left out, not ask for the pruned
 * block forever while the chain runs away from it.
 */

const CHAIN_ID = 8453;
const WINDOW = 40;
let bare: Awaited<ReturnType<typeof startBareNats>>;
let node: ReplayNode;
let reth: ProviderProxy;
/** The replay node's clock: its head moves only when the test moves it. */
let clock = 1_800_000_000_000;

/** A chain of its own on the test's clock, so that its blocks' message ids are new to the stream. */
const ownChain = (chainId: number, firstBlock: number) =>
  startReplayNode({ profile: BASE, chainId, firstBlock, backlog: 1, now: () => clock });

/**
 * The follower, at `start` when the chain moved on to `head`, skipped every block the node's window
 * had dropped by then, said so, and published each block of the window once, in order.
 */
const expectReadOnFromWindow = (
  status: FollowerStatus,
  events: ReadonlyArray<ChainEvent>,
  chainId: number,
  start: number,
  head: number,
) => {
  const kept = head - WINDOW;
  expect(status.blocks_skipped).toEqual({ from: start + 1, to: kept - 1 });
  expect(blockNumbersOf(events, chainId, start)).toEqual(
    Array.from({ length: WINDOW + 1 }, (_, i) => kept + i),
  );
};

beforeAll(async () => {
  bare = await startBareNats();
  // Every test's follower publishes here, each on a chain of its own.
  await (await jetstreamManager(bare.nc)).streams.add({ name: "CHAIN_EVENTS", subjects: ["chain.>"] });
  node = await startReplayNode({
    profile: BASE,
    chainId: CHAIN_ID,
    firstBlock: 5_000,
    backlog: 1,
    now: () => clock,
  });
  reth = await startProviderProxy({ target: node.url, style: "reth", prunedWindow: WINDOW });
});

afterAll(async () => {
  await reth?.stop();
  await node?.stop();
  await bare?.stop();
});

describe("ingest behind a node's retention", { timeout: 60_000 }, () => {
  it("behavior: the follower reads on from the first block the node keeps, and says which blocks it left out", async () => {
    // Never probed: the node's own refusal names the first block it keeps.
    const follower = startTestFollower({
      url: reth.url,
      js: jetstream(bare.nc),
      chainId: CHAIN_ID,
      pollMs: 100,
    });
    const { status } = follower;
    const events = await collectChainEvents(bare.nc);
    try {
      const start = await followedToHead(status, node.head());
      // The chain moves 100 blocks at once: block start + 1 is already out of the node's window.
      clock += 100 * BASE.blockTimeMs;
      const head = node.head();
      expect(head).toBe(start + 100);
      await collectedThrough(status, events.events, CHAIN_ID, head, 30_000);
      expectReadOnFromWindow(status, events.events, CHAIN_ID, start, head);
      // The node did refuse the pruned blocks: the follower got past them, not around them.
      expect(reth.stats().refusals.pruned).toBeGreaterThan(0);

      // Followed again from there, block by block.
      clock += BASE.blockTimeMs;
      await eventually(async () => status.processed === head + 1, 10_000, "the next block");
    } finally {
      await events.stop();
      await follower.stop();
    }
  });

  it("behavior: behind a node that names no first block (geth), the follower finds the first it serves and reads on from there", async () => {
    const own = await ownChain(10, 9_000);
    const geth = await startProviderProxy({ target: own.url, style: "geth", prunedWindow: WINDOW });
    // Never probed, and geth's refusal names no block: only the node's answers can tell.
    const follower = startTestFollower({ url: geth.url, js: jetstream(bare.nc), chainId: 10, pollMs: 100 });
    const { status } = follower;
    const events = await collectChainEvents(bare.nc);
    try {
      const start = await followedToHead(status, own.head());
      clock += 100 * BASE.blockTimeMs;
      const head = own.head();
      await collectedThrough(status, events.events, 10, head, 10_000);
      expectReadOnFromWindow(status, events.events, 10, start, head);
      expect(geth.stats().refusals.pruned).toBeGreaterThan(0);
    } finally {
      await events.stop();
      await follower.stop();
      await geth.stop();
      await own.stop();
    }
  });

  it("behavior: behind two pruned endpoints probed before the window moved, the follower asks each and reads on at once", async () => {
    const own = await ownChain(42161, 11_000);
    const pruned = [
      await startProviderProxy({ target: own.url, style: "reth", prunedWindow: WINDOW }),
      await startProviderProxy({ target: own.url, style: "geth", prunedWindow: WINDOW }),
    ];
    // Probed once, at the start: the probes' figures lie below every block the follower will miss.
    const follower = await startProbedFollower({
      urls: pruned.map((proxy) => proxy.url),
      js: jetstream(bare.nc),
      chainId: 42161,
      probeIntervalMs: 600_000,
    });
    const { status } = follower;
    const events = await collectChainEvents(bare.nc);
    try {
      const start = await followedToHead(status, own.head());
      clock += 100 * BASE.blockTimeMs;
      const head = own.head();
      // Within seconds, not at the next probe ten minutes on.
      await collectedThrough(status, events.events, 42161, head, 10_000);
      expectReadOnFromWindow(status, events.events, 42161, start, head);
    } finally {
      await events.stop();
      await follower.stop();
      for (const proxy of pruned) await proxy.stop();
      await own.stop();
    }
  });

  it.each([
    { when: "while the archive is down", downFromStart: false },
    { when: "when the archive was down since the start and never probed", downFromStart: true },
  ])(
    "behavior: with an archive endpoint beside the pruned one, nothing is skipped, $when",
    async ({ downFromStart }) => {
      const archive = await startProviderProxy({ target: node.url, style: "anvil" });
      // Never probed, the archive has no figure: only asking it can tell it may keep the blocks.
      if (downFromStart) await archive.down();
      const follower = await startProbedFollower({
        urls: [reth.url, archive.url],
        js: jetstream(bare.nc),
        chainId: CHAIN_ID,
        probeIntervalMs: 300,
      });
      const { status } = follower;
      const events = await collectChainEvents(bare.nc);
      try {
        const start = await followedToHead(status, node.head());
        // The archive goes away, and the chain moves past the pruned node's window.
        if (!downFromStart) await archive.down();
        const refused = reth.stats().refusals.pruned;
        clock += 100 * BASE.blockTimeMs;
        const head = node.head();
        await eventually(
          async () => reth.stats().refusals.pruned > refused && status.rpc_errors > 0,
          10_000,
          "the pruned node's refusals, failing the follower's reads",
        );
        // Probed several times meanwhile: the archive may keep the blocks, so none is skipped.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(status.processed).toBe(start);
        expect(status.blocks_skipped).toBeUndefined();
        // Back, the archive serves every block.
        await archive.up();
        await collectedThrough(status, events.events, CHAIN_ID, head, 30_000);
        expect(blockNumbersOf(events.events, CHAIN_ID, start)).toEqual(
          Array.from({ length: head - start }, (_, i) => start + 1 + i),
        );
        expect(status.blocks_skipped).toBeUndefined();
      } finally {
        await events.stop();
        await follower.stop();
        await archive.stop();
      }
    },
  );
});

describe("history from a start block below the nodes' retention", { timeout: 60_000 }, () => {
  /** A chain of its own that has made 150 blocks: history for a start block 100 below its head. */
  const chainWithHistory = async (chainId: number, firstBlock: number) => {
    const own = await ownChain(chainId, firstBlock);
    clock += 150 * BASE.blockTimeMs;
    return own;
  };

  it("behavior: behind two pruned endpoints the history they both dropped is skipped, and said so; the rest is read", async () => {
    const own = await chainWithHistory(43114, 15_000);
    const pruned = [
      await startProviderProxy({ target: own.url, style: "reth", prunedWindow: WINDOW }),
      await startProviderProxy({ target: own.url, style: "geth", prunedWindow: WINDOW }),
    ];
    const head = own.head();
    const start = head - 100;
    const follower = await startProbedFollower({
      urls: pruned.map((proxy) => proxy.url),
      js: jetstream(bare.nc),
      chainId: 43114,
      probeIntervalMs: 600_000,
      startBlock: start,
    });
    const { status } = follower;
    const events = await collectChainEvents(bare.nc);
    try {
      await collectedThrough(status, events.events, 43114, head, 15_000);
      expect(status.history_skipped).toEqual({ from: start, to: head - WINDOW - 1 });
      expect(status.indexed_from).toBe(head - WINDOW);
      expect(blockNumbersOf(events.events, 43114, start - 1)).toEqual(
        Array.from({ length: WINDOW + 1 }, (_, i) => head - WINDOW + i),
      );
    } finally {
      await events.stop();
      await follower.stop();
      for (const proxy of pruned) await proxy.stop();
      await own.stop();
    }
  });

  /**
   * A follower from 100 blocks below the head of a chain of its own, behind a reth-style pruned
   * endpoint and an archive endpoint that is down from the start (never probed); `check` runs with
   * the archive, the follower's status, its collected events and the chain's head and start.
   */
  const behindDownArchive = async (
    chainId: number,
    firstBlock: number,
    historyHoldMs: number | undefined,
    check: (run: {
      readonly archive: ProviderProxy;
      readonly status: FollowerStatus;
      readonly events: ReadonlyArray<ChainEvent>;
      readonly head: number;
      readonly start: number;
      readonly startedAt: number;
    }) => Promise<void>,
  ) => {
    const own = await chainWithHistory(chainId, firstBlock);
    const pruned = await startProviderProxy({ target: own.url, style: "reth", prunedWindow: WINDOW });
    const archive = await startProviderProxy({ target: own.url, style: "anvil" });
    await archive.down();
    const head = own.head();
    const start = head - 100;
    const startedAt = Date.now();
    const follower = await startProbedFollower({
      urls: [pruned.url, archive.url],
      js: jetstream(bare.nc),
      chainId,
      probeIntervalMs: 300,
      startBlock: start,
      ...(historyHoldMs === undefined ? {} : { historyHoldMs }),
    });
    const events = await collectChainEvents(bare.nc);
    try {
      await check({ archive, status: follower.status, events: events.events, head, start, startedAt });
    } finally {
      await events.stop();
      await follower.stop();
      await archive.stop();
      await pruned.stop();
      await own.stop();
    }
  };

  it("behavior: an archive endpoint that stays down holds history back for the hold only; then what the others pruned is skipped, and said so", () =>
    behindDownArchive(250, 19_000, 2_000, async ({ status, events, head, start, startedAt }) => {
      await collectedThrough(status, events, 250, head, 30_000);
      // Not before the hold: the archive might have come back meanwhile.
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(2_000);
      expect(status.history_skipped).toEqual({ from: start, to: head - WINDOW - 1 });
      expect(blockNumbersOf(events, 250, start - 1)).toEqual(
        Array.from({ length: WINDOW + 1 }, (_, i) => head - WINDOW + i),
      );
    }));

  it("behavior: with an archive endpoint beside the pruned one, down since the start and never probed, no history is skipped; it is read whole once the archive is back", () =>
    behindDownArchive(137, 17_000, undefined, async ({ archive, status, events, head, start }) => {
      // The pruned endpoint's probe says its logs begin 100 blocks after the start block; the
      // archive, never probed, may keep them all.
      await eventually(async () => status.rpc_errors > 0, 10_000, "the history reads failing");
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(status.history_skipped).toBeUndefined();
      expect(status.processed ?? start - 1).toBeLessThan(start);
      await archive.up();
      await collectedThrough(status, events, 137, head, 30_000);
      expect(blockNumbersOf(events, 137, start - 1)).toEqual(
        Array.from({ length: head - start + 1 }, (_, i) => start + i),
      );
      expect(status.history_skipped).toBeUndefined();
      expect(status.indexed_from).toBe(start);
    }));
});
