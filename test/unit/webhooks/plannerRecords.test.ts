import { describe, expect, it } from "vitest";
import type { ChainBlock } from "../../../src/domain/ChainBlock.js";
import type { BlockRecordStore } from "../../../src/webhooks/notifier/BlockRecords.js";
import { plannerRecords, RECORDS_KEPT_MS } from "../../../src/webhooks/notifier/plannerRecords.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { memoryBlockRecords } from "../../support/memoryBlockRecords.js";
import { block, planner } from "../../support/notifierPlanning.js";

/** `store` with its reads counted. */
const counted = (store: BlockRecordStore) => {
  const reads = { count: 0 };
  const wrapped: BlockRecordStore = {
    ...store,
    read: (chainId) => {
      reads.count++;
      return store.read(chainId);
    },
  };
  return { store: wrapped, reads };
};

/** One notifier planning with `plannerRecords` over `shared`, on a clock the test moves. */
const notifier = (shared: BlockRecordStore) => {
  const clock = { ms: 0 };
  const { store, reads } = counted(shared);
  const records = plannerRecords(store, () => clock.ms);
  const { apply } = planner(records.store);
  const chain = testChainConfig({ confirmations: 1 });
  /** Plans stream message `seq` holding `b`, as the notifier loop does. */
  const plan = async (seq: number, b: ChainBlock) => {
    records.receiving(seq);
    const deliveries = await apply(chain, b);
    records.planned(seq);
    return deliveries.map((d) => d.block);
  };
  return { plan, reads, clock, records, chain };
};

describe("the notifier's block records while it plans", () => {
  it("behavior: catching up, blocks that follow one another in the stream read the records once, and are planned as with a read each", async () => {
    const shared = memoryBlockRecords().store;
    const a = notifier(shared);
    const delivered: Array<number> = [];
    for (let n = 10; n < 30; n++) delivered.push(...(await a.plan(n, block(n, n % 5 === 0))));
    expect(a.reads.count).toBe(1);
    // Blocks 10, 15, 20 and 25 paid the wallet; with one confirmation each is queued a block later.
    expect(delivered).toEqual([10, 15, 20, 25]);
    // What it holds after its own writes is what the bucket holds.
    expect(await a.records.store.read(1)).toEqual(await shared.read(1));
    expect(a.reads.count).toBe(1);
  });

  it("behavior: a block another notifier recorded between two of this one's messages is released on its confirmation", async () => {
    const shared = memoryBlockRecords().store;
    const a = notifier(shared);
    const b = planner(shared);
    await a.plan(1, block(10, false));
    // Stream message 2 went to the other notifier: block 11 pays the wallet and waits for a confirmation.
    expect(await b.apply(a.chain, block(11, true))).toEqual([]);
    expect(await a.plan(3, block(12, false))).toEqual([11]);
  });

  it("behavior: what this notifier holds is read again after RECORDS_KEPT_MS, so another writer's change is not missed for longer", async () => {
    const shared = memoryBlockRecords().store;
    const a = notifier(shared);
    const b = planner(shared);
    await a.plan(1, block(10, false));
    // Another writer (a node moving its old local records in) records block 11 without a stream message.
    await b.apply(a.chain, block(11, true));
    a.clock.ms += RECORDS_KEPT_MS;
    expect(await a.plan(2, block(12, false))).toEqual([11]);
    expect(a.reads.count).toBe(2);
  });

  it("behavior: however closely messages follow one another, a list is not used longer than RECORDS_KEPT_MS after it was read", async () => {
    const shared = memoryBlockRecords().store;
    const a = notifier(shared);
    const b = planner(shared);
    await a.plan(1, block(10, false));
    // Another writer records block 11 without a stream message, just after this notifier's read.
    await b.apply(a.chain, block(11, true));
    a.clock.ms += RECORDS_KEPT_MS / 2;
    expect(await a.plan(2, block(12, false))).toEqual([]);
    a.clock.ms += RECORDS_KEPT_MS / 2;
    expect(await a.plan(3, block(13, false))).toEqual([11]);
  });

  it("behavior: after a message it could not plan, the records are read again", async () => {
    const shared = memoryBlockRecords().store;
    const a = notifier(shared);
    const b = planner(shared);
    await a.plan(1, block(10, false));
    a.records.failed();
    await b.apply(a.chain, block(11, true));
    expect(await a.plan(2, block(12, false))).toEqual([11]);
  });

  it("behavior: a change planned over a list that moved on is refused, and the next plan reads the list again", async () => {
    const shared = memoryBlockRecords().store;
    const a = notifier(shared);
    const b = planner(shared);
    await a.plan(1, block(10, false));
    await b.apply(a.chain, block(11, false));
    // Within RECORDS_KEPT_MS and in sequence as far as this notifier knows, but the list moved on.
    await b.apply(a.chain, block(12, true));
    a.records.receiving(2);
    await expect(planner(a.records.store).apply(a.chain, block(13, true))).rejects.toThrow(
      /wrong last sequence/,
    );
    a.records.failed();
    expect(await a.plan(2, block(13, true))).toEqual([12]);
  });
});
