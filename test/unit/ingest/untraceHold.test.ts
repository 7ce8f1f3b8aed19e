import { describe, expect, it } from "vitest";
import { makeUntraceHold } from "../../../src/ingest/untraceHold.js";

describe("untraceHold", () => {
  it("behavior: an episode waits the hold from its first refusal, then stays over", () => {
    const hold = makeUntraceHold(60_000);
    expect(hold.over("silent", 1_000)).toBe(false);
    expect(hold.over("silent", 30_000)).toBe(false);
    expect(hold.over("silent", 60_999)).toBe(false);
    expect(hold.over("silent", 61_000)).toBe(true);
    // The next refusals of the same episode (the window's edge moving on) read on at once.
    expect(hold.over("silent", 61_500)).toBe(true);
  });

  it("behavior: once every endpoint answers plainly, the next episode waits anew", () => {
    const hold = makeUntraceHold(60_000);
    expect(hold.over("silent", 0)).toBe(false);
    expect(hold.over("silent", 60_000)).toBe(true);
    hold.reset();
    expect(hold.over("silent", 100_000)).toBe(false);
    expect(hold.over("silent", 160_000)).toBe(true);
  });

  it("behavior: an episode for another reason waits anew", () => {
    const hold = makeUntraceHold(60_000);
    expect(hold.over("silent", 0)).toBe(false);
    expect(hold.over("silent", 60_000)).toBe(true);
    // The archive is back and says it keeps the state: its trace may be served in a moment.
    expect(hold.over("kept", 61_000)).toBe(false);
    expect(hold.over("kept", 121_000)).toBe(true);
  });

  it("behavior: a hold of 0 is over at the first refusal", () => {
    expect(makeUntraceHold(0).over("silent", 5)).toBe(true);
  });
});
