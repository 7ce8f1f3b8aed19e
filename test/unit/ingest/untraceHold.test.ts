import { describe, expect, it } from "vitest";
import { makeUntraceHold } from "../../../src/ingest/untraceHold.js";

describe("untraceHold", () => {
  it("behavior: a wait runs the hold from the first refusal of a run, then reads on while refusals keep coming", () => {
    const hold = makeUntraceHold(60_000);
    expect(hold.over("archive", 1_000)).toBe(false);
    expect(hold.over("archive", 30_000)).toBe(false);
    expect(hold.over("archive", 60_999)).toBe(false);
    expect(hold.over("archive", 61_000)).toBe(true);
    // The next refusals of the run (the window's edge moving on) read on at once.
    expect(hold.over("archive", 65_000)).toBe(true);
    expect(hold.over("archive", 180_000)).toBe(true);
  });

  it("behavior: after a quiet twice the hold, or once its endpoint answers, a wait starts anew", () => {
    const hold = makeUntraceHold(60_000);
    expect(hold.over("archive", 0)).toBe(false);
    expect(hold.over("archive", 60_000)).toBe(true);
    // Refusals came 100 s apart (slow steps): still the same run.
    expect(hold.over("archive", 160_000)).toBe(true);
    // Traces went through for more than twice the hold: a new outage gets its wait.
    expect(hold.over("archive", 280_001)).toBe(false);
    expect(hold.over("archive", 340_001)).toBe(true);
    hold.clear("archive");
    expect(hold.over("archive", 341_000)).toBe(false);
  });

  it("behavior: each endpoint is waited on from its own first silence", () => {
    const hold = makeUntraceHold(60_000);
    expect(hold.over("archive", 0)).toBe(false);
    expect(hold.over("archive", 60_000)).toBe(true);
    // reth is throttled once, long after the archive went quiet: it is waited on, not given up.
    expect(hold.over("reth", 61_000)).toBe(false);
    expect(hold.over("archive", 61_000)).toBe(true);
    expect(hold.over("reth", 121_000)).toBe(true);
  });

  it("behavior: a hold of 0 is over at the first refusal", () => {
    expect(makeUntraceHold(0).over("archive", 5)).toBe(true);
  });
});
