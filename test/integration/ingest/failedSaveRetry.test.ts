import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Effect } from "effect";
import { createPublicClient, createTestClient, http } from "viem";
import { foundry } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilInstance, startAnvil } from "../../../src/devnet/AnvilProcess.js";
import type { HeldLease } from "../../../src/ingest/lease/ChainLease.js";
import { LeaseStoreError } from "../../../src/ingest/lease/LeaseStore.js";
import { startBareNats } from "../../support/bareNats.js";
import { collectChainEvents } from "../../support/chainEvents.js";
import { shownEvents } from "../../support/publishedWindowHarness.js";
import { eventually } from "../../support/serviceHarness.js";
import { followedToHead, startTestFollower } from "../../support/testFollower.js";

/*
 * A follower whose checkpoint save fails after it published a block retries the step. The block is
 * in CHAIN_EVENTS and consumers applied it, but the saved checkpoint does not name it. If the node
 * replaced that block before the retry, the retry must take the published block in first (as a new
 * holder of the chain does) and publish the reorg: reading on from the saved checkpoint would publish
 * the new block at a height consumers already applied, and they would skip it. A real follower, a
 * real anvil and a real nats-server.
 */

const CHAIN_ID = 8453;
let bare: Awaited<ReturnType<typeof startBareNats>>;
let anvil: AnvilInstance;

beforeAll(async () => {
  bare = await startBareNats();
  anvil = await startAnvil({ chainId: CHAIN_ID });
});

afterAll(async () => {
  await anvil?.stop();
  await bare?.stop();
});

describe("a follower whose checkpoint save fails", { timeout: 60_000 }, () => {
  it("edge: the retried step takes in the block it published, so the node replacing that block meanwhile is published as a reorg", async () => {
    const chain = { ...foundry, id: CHAIN_ID };
    const node = createTestClient({ mode: "anvil", chain, transport: http(anvil.rpcUrl) });
    const reader = createPublicClient({ chain, transport: http(anvil.rpcUrl) });
    const blockAt = (n: number) => reader.getBlock({ blockNumber: BigInt(n) });
    await node.mine({ blocks: 2 });
    const head = Number(await reader.getBlockNumber({ cacheTime: 0 }));
    const jsm = await jetstreamManager(bare.nc);
    await jsm.streams.add({ name: "CHAIN_EVENTS", subjects: ["chain.>"], duplicate_window: 120_000_000_000 });
    const events = await collectChainEvents(bare.nc);
    const beforeReorg = await node.snapshot();
    const replaced = head + 1;
    let orphan: string | undefined;
    /** Set once the node holds the replacing block (the save's failure is told only then). */
    let replacedOnNode = false;
    // The save that names block `replaced` fails once; before the follower hears of it, the node
    // replaces that block by one with another timestamp (so another hash) at the same height.
    const failingOnce = (lease: HeldLease): HeldLease => ({
      ...lease,
      save: (checkpoint) =>
        orphan !== undefined || checkpoint.window.at(-1)?.number !== replaced
          ? lease.save(checkpoint)
          : Effect.promise(async () => {
              const published = await blockAt(replaced);
              orphan = published.hash;
              await node.revert({ id: beforeReorg });
              await node.setNextBlockTimestamp({ timestamp: published.timestamp + 7n });
              await node.mine({ blocks: 1 });
              replacedOnNode = true;
            }).pipe(
              Effect.zipRight(
                Effect.fail(new LeaseStoreError({ key: `chain.${CHAIN_ID}`, cause: new Error("timeout") })),
              ),
            ),
    });
    const follower = startTestFollower({
      url: anvil.rpcUrl,
      js: jetstream(bare.nc),
      chainId: CHAIN_ID,
      pollMs: 50,
      throughLease: failingOnce,
    });
    try {
      await followedToHead(follower.status, head);
      await node.mine({ blocks: 1 });
      await eventually(async () => replacedOnNode, 20_000, "the failing save, and the block replaced");
      const successor = (await blockAt(replaced)).hash;
      expect(successor).not.toBe(orphan);
      const expected = [
        { kind: "block", hash: (await blockAt(head)).hash },
        { kind: "block", hash: orphan },
        { kind: "reorg", removed: [orphan] },
        { kind: "block", hash: successor },
      ];
      await eventually(
        async () => shownEvents(events).some((event) => event.kind === "block" && event.hash === successor),
        20_000,
        "the replacing block published",
      );
      expect(shownEvents(events)).toEqual(expected);
      await followedToHead(follower.status, replaced);
    } finally {
      await follower.stop();
      await events.stop();
    }
  });
});
