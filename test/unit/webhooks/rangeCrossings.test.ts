import { describe, expect, it } from "vitest";
import { type RangeRead, rangeCrossings } from "../../../src/webhooks/alerts/rangeCrossings.js";

const read = (tick: number): RangeRead => ({
  webhookId: "w1",
  wallet: "0x00000000000000000000000000000000000000aa",
  position: "0x00000000000000000000000000000000000000bb:0x1",
  tickLower: -600,
  tickUpper: 600,
  tick,
});
const block = (n: number) => ({ number: n, hash: `0x${n.toString(16).padStart(64, "0")}` });

/** Runs the ticks in order, one block each, and answers each block's alerts. */
const alerts = (ticks: ReadonlyArray<number>) => {
  let held: Record<string, unknown> = {};
  return ticks.map((tick, i) => {
    const result = rangeCrossings([read(tick)], held, block(i));
    held = result.held;
    return result.changes.map((c) => c.condition).join(",");
  });
};

describe("range crossings", () => {
  it("default: leaving the range and coming back alert once each", () => {
    expect(alerts([0, 100, 700, 900, 599, 0])).toEqual(["", "", "out_of_range", "", "in_range", ""]);
  });

  it("behavior: a position first seen out of range has not left it: no alert until it comes back", () => {
    expect(alerts([-700, -800, -600])).toEqual(["", "", "in_range"]);
  });

  it("edge: the upper tick is outside the range, the lower inside (Uniswap's rule)", () => {
    expect(alerts([0, 600, -600])).toEqual(["", "out_of_range", "in_range"]);
  });

  it("behavior: the same block planned again alerts again; first sight planned again stays silent", () => {
    const first = rangeCrossings([read(0)], {}, block(1));
    expect(rangeCrossings([read(0)], first.held, block(1)).changes).toEqual([]);
    const out = rangeCrossings([read(700)], first.held, block(2));
    expect(out.changes).toHaveLength(1);
    expect(rangeCrossings([read(700)], out.held, block(2)).changes).toHaveLength(1);
    expect(rangeCrossings([read(700)], out.held, block(3)).changes).toHaveLength(0);
  });
});
