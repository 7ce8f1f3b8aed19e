import { describe, expect, it } from "vitest";
import { BLOCK_MESSAGE_VERSION, type ChainBlock, ChainReorg } from "../../../src/domain/ChainBlock.js";
import type { BlockEvents } from "../../../src/webhooks/notifier/BlockEvents.js";
import { joinParts, partsJson, splitParts } from "../../../src/webhooks/notifier/BlockRecords.js";
import { EventSlots } from "../../../src/webhooks/notifier/enqueue.js";
import {
  nothingToPlan,
  type PlanDeps,
  planBlock,
  planReorg,
} from "../../../src/webhooks/notifier/planNotifications.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { blockHash } from "../../support/indexerBlocks.js";
import { memoryBlockRecords } from "../../support/memoryBlockRecords.js";
import { block, planner, reorg, WALLET, webhook } from "../../support/notifierPlanning.js";

describe("webhook planning over shared block records", () => {
  it("behavior: with no confirmations a matching block is queued at once, and planned again it queues nothing", async () => {
    const { apply } = planner(memoryBlockRecords().store);
    const chain = testChainConfig();
    expect(await apply(chain, block(10, true))).toEqual([{ block: 10, removed: false, webhook: "W" }]);
    expect(await apply(chain, block(10, true))).toEqual([]);
    expect(await apply(chain, block(11, false))).toEqual([]);
  });

  it("behavior: with 2 confirmations a block is queued when the second block after it is planned, once", async () => {
    const { apply } = planner(memoryBlockRecords().store);
    const chain = testChainConfig({ confirmations: 2 });
    expect(await apply(chain, block(10, true))).toEqual([]);
    expect(await apply(chain, block(11, false))).toEqual([]);
    expect(await apply(chain, block(12, false))).toEqual([{ block: 10, removed: false, webhook: "W" }]);
    expect(await apply(chain, block(13, false))).toEqual([]);
  });

  it("behavior: a block planned by one notifier is confirmed and retracted by another sharing the records", async () => {
    const shared = memoryBlockRecords().store;
    const first = planner(shared);
    const second = planner(shared);
    const chain = testChainConfig({ confirmations: 1 });
    expect(await first.apply(chain, block(10, true))).toEqual([]);
    expect(await second.apply(chain, block(11, false))).toEqual([
      { block: 10, removed: false, webhook: "W" },
    ]);
    expect(await first.apply(chain, reorg([11, 10]))).toEqual([{ block: 10, removed: true, webhook: "W" }]);
  });

  it("behavior: a reorg retracts queued blocks with removed: true and forgets blocks still waiting", async () => {
    const { apply } = planner(memoryBlockRecords().store);
    const chain = testChainConfig({ confirmations: 1 });
    await apply(chain, block(10, true));
    expect(await apply(chain, block(11, true))).toEqual([{ block: 10, removed: false, webhook: "W" }]);
    // 11 waits for its confirmation: the reorg forgets it and retracts only 10.
    expect(await apply(chain, reorg([11, 10]))).toEqual([{ block: 10, removed: true, webhook: "W" }]);
    expect(await apply(chain, block(12, false))).toEqual([]);
  });

  it("behavior: a webhook made inactive while its block waited gets neither the block nor its retraction", async () => {
    const { apply, hooks } = planner(memoryBlockRecords().store);
    const chain = testChainConfig({ confirmations: 1 });
    await apply(chain, block(10, true));
    hooks.set("W", webhook("W", false));
    expect(await apply(chain, block(11, false))).toEqual([]);
    expect(await apply(chain, reorg([10]))).toEqual([]);
  });

  it("behavior: a webhook made inactive after its block was queued gets the retraction queued behind it; one inactive when its block was released gets none after reactivation", async () => {
    const queuedFirst = planner(memoryBlockRecords().store);
    const chain = testChainConfig();
    expect(await queuedFirst.apply(chain, block(10, true))).toEqual([
      { block: 10, removed: false, webhook: "W" },
    ]);
    queuedFirst.hooks.set("W", webhook("W", false));
    expect(await queuedFirst.apply(chain, reorg([10]))).toEqual([{ block: 10, removed: true, webhook: "W" }]);

    const withheld = planner(memoryBlockRecords().store);
    const confirmed = testChainConfig({ confirmations: 1 });
    await withheld.apply(confirmed, block(10, true));
    withheld.hooks.set("W", webhook("W", false));
    expect(await withheld.apply(confirmed, block(11, false))).toEqual([]);
    withheld.hooks.set("W", webhook("W", true));
    expect(await withheld.apply(confirmed, reorg([11, 10]))).toEqual([]);
  });

  it("behavior: a block an earlier version released (no record of what it withheld) is retracted for the webhooks active at the reorg, as that version did", async () => {
    const { apply, hooks, store } = planner(memoryBlockRecords().store);
    const chain = testChainConfig({ confirmations: 1 });
    // Block 10 as the earlier version stored it: released, no appearance, nothing withheld.
    const events = {
      webhook_id: "W",
      team_id: "TEAM",
      type: "transactions" as const,
      chain_id: 1,
      block_number: 10,
      block_hash: blockHash(10),
      events: [{ event_id: "e" }],
    };
    await store.write({
      chainId: 1,
      revision: 0,
      kept: [],
      added: { number: 10, hash: blockHash(10), released: true, events: [events] },
      dropped: [],
    });
    hooks.set("W", webhook("W", false));
    expect(await apply(chain, reorg([10]))).toEqual([]);

    // Recorded by this version (an appearance), released by an earlier one (nothing withheld said).
    await store.write({
      chainId: 1,
      revision: (await store.read(1)).revision,
      kept: [],
      added: { number: 10, hash: blockHash(10), released: true, appearance: "0:7", events: [events] },
      dropped: [],
    });
    expect(await apply(chain, reorg([10]))).toEqual([]);
  });

  it("behavior: records older than the reorg window are dropped with their events, so a late reorg retracts nothing", async () => {
    const { store, parts } = memoryBlockRecords();
    const { apply } = planner(store);
    const chain = testChainConfig({ finality_depth: 2 });
    await apply(chain, block(10, true));
    await apply(chain, block(12, false));
    expect((await store.read(1)).blocks.map((b) => b.number)).toEqual([10]);
    await apply(chain, block(13, false));
    expect((await store.read(1)).blocks).toEqual([]);
    expect(parts.size).toBe(0);
    expect(await apply(chain, reorg([10]))).toEqual([]);
  });

  it("behavior: a plan over records another notifier changed meanwhile is refused, not written over them", async () => {
    const shared = memoryBlockRecords().store;
    const chain = testChainConfig({ confirmations: 1 });
    const deps = (id: string): PlanDeps => ({
      records: shared,
      webhooksFor: (address) => (address === WALLET ? [id] : []),
      watchedAddresses: () => 1,
      recordOf: (hook) => webhook(hook),
      readBalances: () => Promise.reject(new Error("unused")),
      publicUrl: "http://localhost",
      now: () => 0,
    });
    const stale = await planBlock(deps("A"), chain, block(10, true), new EventSlots(0, 1));
    const fresh = await planBlock(deps("B"), chain, block(10, true), new EventSlots(0, 1));
    await shared.write(fresh.records!);
    await expect(shared.write(stale.records!)).rejects.toThrow(/wrong last sequence/);
    expect((await shared.events(1, (await shared.read(1)).blocks[0]!)).map((e) => e.webhook_id)).toEqual([
      "B",
    ]);
  });
});

describe("events the notifier need not read", () => {
  it("behavior: with no address watched and no block recorded an event plans nothing; a recorded block still waiting for its confirmations is released all the same", async () => {
    const { apply, deps, watched } = planner(memoryBlockRecords().store);
    const chain = testChainConfig({ confirmations: 2 });
    watched.count = 0;
    expect(await nothingToPlan(deps, chain.chain_id)).toBe(true);
    expect(await apply(chain, block(10, true))).toEqual([]);
    expect(await nothingToPlan(deps, chain.chain_id)).toBe(true);
    watched.count = 1;
    expect(await nothingToPlan(deps, chain.chain_id)).toBe(false);
    // Recorded, waiting for two confirmations; then the webhook's address is removed.
    expect(await apply(chain, block(11, true))).toEqual([]);
    watched.count = 0;
    expect(await nothingToPlan(deps, chain.chain_id)).toBe(false);
    expect(await apply(chain, block(12, false))).toEqual([]);
    expect(await apply(chain, block(13, false))).toEqual([{ block: 11, removed: false, webhook: "W" }]);
  });
});

describe("delivery ids across a block's appearances", () => {
  const OTHER_HASH = `0x${"b".repeat(64)}`;
  const removing = (hash: string) =>
    ChainReorg.make({
      version: BLOCK_MESSAGE_VERSION,
      chain_id: 1,
      common_ancestor: { number: 9, hash: blockHash(9) },
      removed: [{ number: 10, hash }],
    });

  for (const confirmations of [0, 1])
    it(`behavior: a block a reorg removed and a later one brought back is delivered and retracted under new webhook-ids (confirmations ${confirmations}); the same message planned again keeps its ids`, async () => {
      const { deps, store } = planner(memoryBlockRecords().store);
      const chain = testChainConfig({ confirmations });
      let seq = 0;
      const plan = async (event: ChainBlock | ChainReorg, at = ++seq) => {
        const slots = new EventSlots(1_700_000_000_000, at);
        const made =
          event instanceof ChainReorg
            ? await planReorg(deps, chain, event, slots)
            : await planBlock(deps, chain, event, slots);
        return { made, write: () => (made.records === undefined ? undefined : store.write(made.records)) };
      };
      /** Plans and stores `event`, and the block after it when confirmations wait: the deliveries' ids. */
      const step = async (event: ChainBlock | ChainReorg) => {
        const planned = await plan(event);
        await planned.write();
        const ids = planned.made.deliveries.map((d) => `${d.removed ? "-" : "+"}${d.id}`);
        if (confirmations === 0 || event instanceof ChainReorg) return ids;
        const confirming = await plan(block(11, false));
        // Block 11 matches nothing, so it leaves no record for the reorgs below to take away.
        await confirming.write();
        return confirming.made.deliveries.map((d) => `+${d.id}`);
      };

      const first = await step(block(10, true));
      const retracted = await step(removing(blockHash(10)));
      await step(block(10, true, OTHER_HASH));
      await step(removing(OTHER_HASH));
      // The same message planned on two nodes before either stored it: one set of ids.
      const again = await plan(block(10, true), seq + 1);
      const twice = await plan(block(10, true), seq + 1);
      expect(again.made.deliveries.map((d) => d.id)).toEqual(twice.made.deliveries.map((d) => d.id));
      const back = await step(block(10, true));
      const retractedAgain = await step(removing(blockHash(10)));

      expect(first).toHaveLength(1);
      expect(back).toHaveLength(1);
      expect(retracted).toHaveLength(1);
      expect(retractedAgain).toHaveLength(1);
      expect(new Set([...first, ...back, ...retracted, ...retractedAgain]).size).toBe(4);
    });
});

describe("block record parts", () => {
  const record = (id: string, count: number): BlockEvents => ({
    webhook_id: id,
    team_id: "TEAM",
    type: "transactions",
    chain_id: 1,
    block_number: 10,
    block_hash: blockHash(10),
    events: Array.from({ length: count }, (_, i) => ({ event_id: `${id}-${i}`, pad: "x".repeat(100) })),
  });

  it("behavior: events over the part budget are split, each part within it, and joined back per webhook in order", () => {
    const records = [record("A", 30), record("B", 1), record("C", 12)];
    const parts = splitParts(records, 1_000);
    expect(parts.length).toBeGreaterThan(3);
    for (const part of parts) expect(JSON.stringify(part).length).toBeLessThanOrEqual(1_000 + 200);
    expect(joinParts(parts)).toEqual(records);
    expect(splitParts(records)).toEqual([records]);
    // As stored: the same parts' JSON, split or whole.
    expect(partsJson(records, 1_000)).toEqual(parts.map((part) => JSON.stringify(part)));
    expect(partsJson(records)).toEqual([JSON.stringify(records)]);
  });
});
