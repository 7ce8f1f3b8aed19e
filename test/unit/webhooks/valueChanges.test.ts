import { describe, expect, it } from "vitest";
import { fitBaselines } from "../../../src/webhooks/alerts/ValueBaselines.js";
import {
  type Baselines,
  effectiveBaseline,
  MIN_BASELINE_USD,
  settled,
  valueChanges,
} from "../../../src/webhooks/alerts/valueChanges.js";

const hash = (n: number, branch = "a") => `0x${branch}${n.toString(16).padStart(63, "0")}`;
const block = (n: number, branch = "a") => ({
  number: n,
  hash: hash(n, branch),
  parent_hash: hash(n - 1, branch),
});
const KEY = "Tokenized:0x00000000000000000000000000000000000000a7";

/**
 * Runs `values` (one per block, `undefined`: unpriced, `null`: not held) through valueChanges with
 * a 10 % threshold, fired alerts kept as the notifier keeps them; answers each block's change in
 * percent (rounded), or "" for none.
 */
const run = (values: ReadonlyArray<number | undefined | null>, before?: number) => {
  let stored: Baselines = {};
  const fired = new Set<string>();
  return values.map((usd, i) => {
    const at = block(i + 1);
    const result = valueChanges({
      threshold: 10,
      values: usd === null ? [] : [{ key: KEY, usd }],
      stored,
      block: at,
      oldest: 0,
      standing: (hash) => fired.has(hash),
      before: () => (i === 0 ? before : undefined),
    });
    stored = result.baselines;
    if (result.crossings.length > 0) fired.add(at.hash);
    return result.crossings.map((c) => Math.round(c.changePct)).join(",");
  });
};

describe("value change baselines", () => {
  it("default: first sight is silent; a move of the threshold alerts and becomes the baseline; smaller moves add up", () => {
    expect(run([100, 105, 109.9, 110, 115, 121, 99])).toEqual(["", "", "", "10", "", "10", "-18"]);
  });

  it("edge: exactly the threshold alerts, either way", () => {
    expect(run([200, 180, 198])).toEqual(["", "-10", "10"]);
  });

  it("behavior: a position first seen is measured from its value at the block before; one opened in the block is silent", () => {
    expect(run([120], 100)).toEqual(["20"]);
    expect(run([120], undefined)).toEqual([""]);
  });

  it("behavior: unpriced keeps the baseline until priced again; a closed position drops it", () => {
    expect(run([100, undefined, undefined, 130])).toEqual(["", "", "", "30"]);
    expect(run([100, null, 130])).toEqual(["", "", ""]);
  });

  it("edge: a dust baseline is no base for a percentage: replaced silently", () => {
    expect(run([MIN_BASELINE_USD / 2, 50, 54, 56])).toEqual(["", "", "", "12"]);
  });

  it("edge: debt (negative values) is measured on the baseline's size, sign kept", () => {
    expect(run([-1000, -1100, -880])).toEqual(["", "-10", "20"]);
  });

  it("behavior: the same block planned again makes the same decision, alert or first sight", () => {
    const first = valueChanges({
      threshold: 10,
      values: [{ key: KEY, usd: 100 }],
      stored: {},
      block: block(1),
      oldest: 0,
      standing: () => false,
      before: () => undefined,
    });
    const again = valueChanges({
      threshold: 10,
      values: [{ key: KEY, usd: 100 }],
      stored: first.baselines,
      block: block(1),
      oldest: 0,
      standing: () => false,
      before: () => undefined,
    });
    expect(again).toEqual(first);
    const moved = valueChanges({
      threshold: 10,
      values: [{ key: KEY, usd: 150 }],
      stored: first.baselines,
      block: block(2),
      oldest: 0,
      standing: () => false,
      before: () => undefined,
    });
    expect(moved.crossings).toHaveLength(1);
    const replanned = valueChanges({
      threshold: 10,
      values: [{ key: KEY, usd: 150 }],
      stored: moved.baselines,
      block: block(2),
      oldest: 0,
      standing: (h) => h === hash(2),
      before: () => undefined,
    });
    expect(replanned).toEqual(moved);
  });

  it("behavior: an alert a reorg retracted (its fired entry gone) gives its baseline back; a new branch alerts anew", () => {
    const stored: Baselines = {
      [KEY]: {
        usd: 150,
        number: 2,
        hash: hash(2),
        before: { usd: 100, number: 1, hash: hash(1) },
        alerted: true,
      },
    };
    const base = (standing: boolean, oldest = 0) =>
      effectiveBaseline(stored[KEY], block(2, "b"), oldest, () => standing);
    expect(base(true)).toBe(stored[KEY]);
    expect(base(false)).toEqual({ usd: 100, number: 1, hash: hash(1) });
    // Past the reorg window a block stands, whatever the fired alerts say.
    expect(base(false, 3)).toBe(stored[KEY]);
    const onNewBranch = valueChanges({
      threshold: 10,
      values: [{ key: KEY, usd: 140 }],
      stored,
      block: block(2, "b"),
      oldest: 0,
      standing: () => false,
      before: () => undefined,
    });
    expect(onNewBranch.crossings).toEqual([
      { key: KEY, baseline: { usd: 100, number: 1, hash: hash(1) }, usd: 140, changePct: 40 },
    ]);
    const calm = valueChanges({
      threshold: 10,
      values: [{ key: KEY, usd: 101 }],
      stored,
      block: block(2, "b"),
      oldest: 0,
      standing: () => false,
      before: () => undefined,
    });
    expect(calm).toEqual({ crossings: [], baselines: { [KEY]: { usd: 100, number: 1, hash: hash(1) } } });
  });

  it("behavior: settled drops what only a reorg could need once the block is past the window", () => {
    const stored: Baselines = {
      [KEY]: {
        usd: 150,
        number: 2,
        hash: hash(2),
        before: { usd: 100, number: 1, hash: hash(1) },
        alerted: true,
      },
    };
    expect(settled(stored, 2)).toEqual(stored);
    expect(settled(stored, 3)).toEqual({ [KEY]: { usd: 150, number: 2, hash: hash(2) } });
  });

  it("edge: NaN or infinite values are treated as unpriced", () => {
    expect(run([100, Number.NaN, Number.POSITIVE_INFINITY, 100])).toEqual(["", "", "", ""]);
  });
});

describe("a wallet's baselines in the bucket", () => {
  it("behavior: past the byte bound whole webhooks' baselines are left out, the largest first, the same each time", () => {
    const baseline = { usd: 100, number: 1, hash: `0x${"1".repeat(64)}` };
    const own = (positions: number) =>
      Object.fromEntries(Array.from({ length: positions }, (_, i) => [`Tokenized:0x${i}`, baseline]));
    const baselines = { small: own(1), large: own(40), middle: own(10) };
    expect(fitBaselines(baselines, 1_000_000)).toBe(baselines);
    const bound = JSON.stringify({ small: own(1), middle: own(10) }).length;
    const kept = fitBaselines(baselines, bound);
    expect(Object.keys(kept).sort()).toEqual(["middle", "small"]);
    expect(JSON.stringify(kept).length).toBeLessThanOrEqual(bound);
    expect(fitBaselines(baselines, bound)).toEqual(kept);
  });
});
