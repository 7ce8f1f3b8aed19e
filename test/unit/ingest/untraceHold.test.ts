import { describe, expect, it } from "vitest";
import { makeUntraceHold } from "../../../src/ingest/untraceHold.js";

const archive = { label: "http://archive" };
const reth = { label: "http://reth" };

describe("untraceHold", () => {
  it("behavior: a wait runs the hold from the first refusal of a run, then reads on while refusals keep coming", () => {
    const hold = makeUntraceHold(60_000, 120_000);
    // Met 45 s apart (a trace waiting out a down archive's pause each time): one run.
    expect(hold.over(archive, 1_000)).toBe(false);
    expect(hold.over(archive, 46_000)).toBe(false);
    expect(hold.over(archive, 60_999)).toBe(false);
    expect(hold.over(archive, 61_000)).toBe(true);
    // The next refusals of the run (the window's edge moving on) read on at once.
    expect(hold.over(archive, 65_000)).toBe(true);
    expect(hold.over(archive, 90_000)).toBe(true);
  });

  it("behavior: after a quiet two minutes a wait starts anew", () => {
    const hold = makeUntraceHold(60_000, 120_000);
    expect(hold.over(archive, 0)).toBe(false);
    expect(hold.over(archive, 60_000)).toBe(true);
    // Refusals 100 s apart: still the same run.
    expect(hold.over(archive, 160_000)).toBe(true);
    // Traces went through for more than two minutes: the follower fell behind again, and waits again.
    expect(hold.over(archive, 280_001)).toBe(false);
    expect(hold.over(archive, 340_001)).toBe(true);
  });

  it("behavior: an endpoint alternating between failing and answering is given up once its run is a hold long", () => {
    const hold = makeUntraceHold(60_000, 120_000);
    // Met every 10 s (answers in between are not asked about here): one run.
    for (let at = 0; at < 60_000; at += 10_000) expect(hold.over(archive, at)).toBe(false);
    expect(hold.over(archive, 60_000)).toBe(true);
  });

  it("behavior: each endpoint is waited on from its own first silence, even two with one label", () => {
    const hold = makeUntraceHold(60_000, 120_000);
    expect(hold.over(archive, 0)).toBe(false);
    expect(hold.over(archive, 30_000)).toBe(false);
    expect(hold.over(archive, 60_000)).toBe(true);
    // reth is throttled once, long after the archive went quiet: it is waited on, not given up.
    expect(hold.over(reth, 61_000)).toBe(false);
    expect(hold.over({ label: "http://archive" }, 61_000)).toBe(false);
    expect(hold.over(reth, 91_000)).toBe(false);
    expect(hold.over(reth, 121_000)).toBe(true);
  });

  it("behavior: a hold of 0 is over at the first refusal", () => {
    expect(makeUntraceHold(0, 120_000).over(archive, 5)).toBe(true);
  });
});
