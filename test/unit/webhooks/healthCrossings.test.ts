import { describe, expect, it } from "vitest";
import type { FiredAlert } from "../../../src/webhooks/alerts/AlertStates.js";
import {
  healthAlertKey,
  healthCrossings,
  rearmLevel,
  withoutBlocks,
} from "../../../src/webhooks/alerts/healthCrossings.js";

const WALLET = "0x00000000000000000000000000000000000000aa";
const POOL = "0x00000000000000000000000000000000000000bb";
const watch = { webhookId: "w1", threshold: 1.1, wallets: [WALLET] };
const key = healthAlertKey("w1", WALLET, POOL);
const block = (n: number) => ({ number: n, hash: `0x${n.toString(16).padStart(64, "0")}` });
const read = (healthFactor: number | null) => [{ wallet: WALLET, pool: POOL, healthFactor }];

/** Runs the health factors in order, one block each, and answers the blocks that alerted. */
const alertedBlocks = (series: ReadonlyArray<number | null>): ReadonlyArray<number> => {
  let fired: Record<string, FiredAlert> = {};
  const out: Array<number> = [];
  series.forEach((hf, i) => {
    const result = healthCrossings([watch], read(hf), fired, block(i));
    if (result.crossings.length > 0) out.push(i);
    fired = result.fired;
  });
  return out;
};

describe("health factor crossings", () => {
  it("default: crossing below alerts once while it stays below", () => {
    expect(alertedBlocks([1.3, 1.05, 1.0, 0.95])).toEqual([1]);
  });

  it("behavior: a wobble above the threshold but under the re-arm level does not alert again", () => {
    expect(rearmLevel(1.1)).toBeCloseTo(1.155, 9);
    expect(alertedBlocks([1.3, 1.09, 1.12, 1.09, 1.15, 1.08])).toEqual([1]);
  });

  it("behavior: rising to the re-arm level, or repaying the debt, arms the alert again", () => {
    expect(alertedBlocks([1.09, 1.2, 1.09])).toEqual([0, 2]);
    expect(alertedBlocks([1.09, null, 1.09])).toEqual([0, 2]);
  });

  it("behavior: the same block planned again alerts again (the delivery id is the same), a later one does not", () => {
    const first = healthCrossings([watch], read(1.0), {}, block(5));
    expect(first.fired[key]).toEqual(block(5));
    expect(healthCrossings([watch], read(1.0), first.fired, block(5)).crossings).toHaveLength(1);
    expect(healthCrossings([watch], read(1.0), first.fired, block(6)).crossings).toHaveLength(0);
  });

  it("behavior: an alert fired at a block a reorg removed is armed again; others stay", () => {
    const fired = { [key]: block(5), other: block(4) };
    expect(withoutBlocks(fired, new Set([block(5).hash]))).toEqual({ other: block(4) });
  });

  it("edge: accounts without debt never alert; alerts of webhooks not evaluated are kept", () => {
    const kept = { [healthAlertKey("gone", WALLET, POOL)]: block(1) };
    const result = healthCrossings([watch], read(null), kept, block(2));
    expect(result.crossings).toEqual([]);
    expect(result.fired).toEqual(kept);
  });
});
