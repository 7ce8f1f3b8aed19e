import { describe, expect, it } from "vitest";
import { ProtocolConfig } from "../../../src/chains/ChainsConfig.js";
import type { Position } from "../../../src/contracts/Positions.js";
import type { ChainBlock } from "../../../src/domain/ChainBlock.js";
import { memoryAlertStates } from "../../../src/webhooks/alerts/AlertStates.js";
import {
  forgetRemovedAlerts,
  type PositionAlertDeps,
  type PositionWatcher,
  positionsAround,
} from "../../../src/webhooks/alerts/positionAlerts.js";
import { positionFootprints } from "../../../src/webhooks/alerts/positionFootprints.js";
import { memoryBaselines } from "../../../src/webhooks/alerts/ValueBaselines.js";
import { type ValueChangeDeps, valueChangeAlerts } from "../../../src/webhooks/alerts/valueChangeAlerts.js";
import { alertBlock, logOf } from "../../support/alertBlocks.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { webhookRecord } from "../../support/webhookRecordFixture.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const AAVE_POOL = address(0xa1);
const A_WETH = address(0xa7);
const WETH = address(0xeee);
const PRICING_POOL = address(0x1001);
const WALLET = address(0xaaaa_0001);
const chain = testChainConfig({
  protocols: [ProtocolConfig.make({ protocol: "AaveV3", kind: "aave_v3", address: AAVE_POOL })],
});
const swap = logOf(PRICING_POOL, [`0x${"d7".repeat(32)}`]);

/** The wallet's aWETH supply worth `usd`, as the positions endpoint shows it. */
const supply = (usd: number) =>
  ({
    type: "Tokenized",
    chain_id: 1,
    usd_value: usd,
    token: A_WETH,
    underlying_token: WETH,
    lending_pool: AAVE_POOL,
  }) as unknown as Position;

/**
 * valueChangeAlerts over memory stores and a wallet worth `usd[hash]` at each block (100 at any
 * other), for `watchers`; `run` plans one block, as the notifier would, and answers its events.
 */
const fixture = (
  usd: Record<string, number>,
  watchers: ReadonlyArray<PositionWatcher>,
  /** Blocks whose first read fails (a node's passing refusal). */
  failing: Set<string> = new Set(),
) => {
  const reads: Array<string> = [];
  const states = memoryAlertStates();
  const values: ValueChangeDeps = {
    baselines: memoryBaselines(),
    footprints: positionFootprints({
      priceSources: async () => new Set([PRICING_POOL]),
      lendingAsset: async () => undefined,
    }),
  };
  const deps = {
    states,
    readPositions: async (_chain: unknown, _wallet: string, at: { hash: string }) => {
      reads.push(at.hash);
      if (failing.delete(at.hash)) throw new Error("the node refused the read");
      return [supply(usd[at.hash] ?? 100)];
    },
  } as unknown as PositionAlertDeps;
  const run = async (block: ChainBlock) =>
    (await valueChangeAlerts(deps, values, chain, block, watchers, positionsAround(deps, chain, block))).map(
      (a) => a.event,
    );
  return { run, reads, states };
};

const watching = (conditions: Record<string, unknown>, overrides: Record<string, unknown> = {}) => [
  {
    record: webhookRecord({ id: "w1", type: "positions", conditions, ...overrides }),
    wallets: [WALLET],
  },
];

describe("value change alerts", () => {
  it("behavior: a price move past the threshold alerts once with the baseline, the value and the entries around the block", async () => {
    const block = (n: number) => alertBlock(n, { logs: [swap] });
    const { run, reads } = fixture(
      { [block(3).hash]: 105, [block(4).hash]: 121, [block(5).hash]: 125, [block(6).hash]: 145.2 },
      watching({ value_change_pct: 10 }),
    );
    expect(await run(block(1))).toEqual([]);
    expect(await run(block(2))).toEqual([]);
    expect(await run(block(3))).toEqual([]);
    const [first, ...rest] = await run(block(4));
    expect(rest).toEqual([]);
    expect(first).toEqual({
      event_id: `1:${block(4).hash}:${WALLET}:Tokenized:${A_WETH}:value_change_pct`,
      removed: false,
      condition: "value_change_pct",
      chain_id: 1,
      block_number: 4,
      block_hash: block(4).hash,
      subscribed_address: WALLET,
      position_type: "Tokenized",
      protocol: "AaveV3",
      position_key: `Tokenized:${A_WETH}`,
      threshold: 10,
      usd_value_before: 100,
      // First seen at block 1, measured from its value at block 0.
      baseline_block_number: 0,
      usd_value: 121,
      change_pct: expect.closeTo(21, 9),
      positions_before: [supply(105)],
      positions_after: [supply(121)],
    });
    // The block before is read only where an alert needs it (or a position is first seen).
    const start = reads.length;
    expect(await run(block(5))).toEqual([]);
    expect(reads.slice(start)).toEqual([block(5).hash]);
    const [second] = await run(block(6));
    expect(reads.slice(start + 1)).toEqual([block(6).hash, block(5).hash]);
    expect(second).toMatchObject({ usd_value_before: 121, baseline_block_number: 4, usd_value: 145.2 });
  });

  it("behavior: a block planned again alerts again with the same event; a block that moves no source reads nothing", async () => {
    const block = (n: number) => alertBlock(n, { logs: [swap] });
    const { run, reads } = fixture({ [block(2).hash]: 150 }, watching({ value_change_pct: 10 }));
    await run(block(1));
    const first = await run(block(2));
    expect(first).toHaveLength(1);
    expect(await run(block(2))).toEqual(first);
    const before = reads.length;
    expect(await run(alertBlock(3))).toEqual([]);
    expect(reads.length).toBe(before);
  });

  it("behavior: a reorg that removes the alert's block gives the baseline back, and the new branch alerts anew", async () => {
    const block = (n: number, branch = "a") => alertBlock(n, { logs: [swap], branch });
    const { run, states } = fixture(
      { [block(2).hash]: 150, [block(2, "b").hash]: 130 },
      watching({ value_change_pct: 10 }),
    );
    await run(block(1));
    expect(await run(block(2))).toHaveLength(1);
    await forgetRemovedAlerts(states, 1, new Set([block(2).hash]));
    const fresh = { ...block(2, "b"), parent_hash: block(1).hash };
    const [again] = await run(fresh);
    expect(again).toMatchObject({ block_hash: fresh.hash, usd_value_before: 100, usd_value: 130 });
  });

  it("behavior: a position_types or protocols filter that leaves the position out keeps it unwatched", async () => {
    const block = (n: number) => alertBlock(n, { logs: [swap] });
    const values = { [block(2).hash]: 150 };
    const types = fixture(values, watching({ value_change_pct: 10 }, { position_types: ["Nft"] }));
    const protocols = fixture(values, watching({ value_change_pct: 10 }, { protocols: ["AaveV2"] }));
    const aave = fixture(values, watching({ value_change_pct: 10 }, { protocols: ["aavev3"] }));
    for (const { run } of [types, protocols]) {
      await run(block(1));
      expect(await run(block(2))).toEqual([]);
    }
    await aave.run(block(1));
    expect(await aave.run(block(2))).toHaveLength(1);
  });

  it("error: a wallet whose read fails is left for a later block, which alerts; the block itself does not fail", async () => {
    const block = (n: number) => alertBlock(n, { logs: [swap] });
    const { run } = fixture(
      { [block(2).hash]: 150, [block(3).hash]: 150 },
      watching({ value_change_pct: 10 }),
      new Set([block(2).hash]),
    );
    await run(block(1));
    expect(await run(block(2))).toEqual([]);
    const [late] = await run(block(3));
    expect(late).toMatchObject({ block_number: 3, usd_value_before: 100, usd_value: 150 });
  });
});
