import { describe, expect, it } from "vitest";
import { makeUntraceHold } from "../../../src/ingest/untraceHold.js";

describe("untraceHold", () => {
  it("behavior: an episode waits the hold from its first refusal, then reads on while refusals keep coming", () => {
    const hold = makeUntraceHold(60_000);
    expect(hold.over("silent", 1_000)).toBe(false);
    expect(hold.over("silent", 30_000)).toBe(false);
    expect(hold.over("silent", 60_999)).toBe(false);
    expect(hold.over("silent", 61_000)).toBe(true);
    // The next refusals of the same episode (the window's edge moving on) read on at once.
    expect(hold.over("silent", 65_000)).toBe(true);
    expect(hold.over("silent", 120_000)).toBe(true);
  });

  it("behavior: after a quiet hold, or once every endpoint answers plainly, the next refusal waits anew", () => {
    const hold = makeUntraceHold(60_000);
    expect(hold.over("silent", 0)).toBe(false);
    expect(hold.over("silent", 60_000)).toBe(true);
    // Traces went through for more than the hold: a new outage gets its wait.
    expect(hold.over("silent", 120_001)).toBe(false);
    expect(hold.over("silent", 180_001)).toBe(true);
    hold.reset();
    expect(hold.over("silent", 181_000)).toBe(false);
  });

  it("behavior: another reason waits anew, but an episode waits twice the hold at most", () => {
    const hold = makeUntraceHold(60_000);
    expect(hold.over("silent", 0)).toBe(false);
    expect(hold.over("silent", 60_000)).toBe(true);
    // The archive is back and says it keeps the state: its trace may be served in a moment.
    expect(hold.over("kept", 61_000)).toBe(false);
    // It flaps between silent and kept every few seconds: each change would wait anew...
    expect(hold.over("silent", 70_000)).toBe(false);
    expect(hold.over("kept", 80_000)).toBe(false);
    expect(hold.over("silent", 110_000)).toBe(false);
    // ...but not past twice the hold from the episode's start.
    expect(hold.over("kept", 120_000)).toBe(true);
  });

  it("behavior: a hold of 0 is over at the first refusal", () => {
    expect(makeUntraceHold(0).over("silent", 5)).toBe(true);
  });
});
