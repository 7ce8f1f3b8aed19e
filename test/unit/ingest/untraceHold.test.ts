import { describe, expect, it } from "vitest";
import { makeUntraceHold } from "../../../src/ingest/untraceHold.js";

describe("untraceHold", () => {
  it("behavior: a refused block waits the hold from its first refusal, then is released", () => {
    const hold = makeUntraceHold(60_000);
    expect(hold.over(100, 1_000)).toBe(false);
    expect(hold.over(100, 30_000)).toBe(false);
    expect(hold.over(100, 60_999)).toBe(false);
    expect(hold.over(100, 61_000)).toBe(true);
  });

  it("behavior: another refused block starts a wait of its own", () => {
    const hold = makeUntraceHold(60_000);
    expect(hold.over(100, 0)).toBe(false);
    expect(hold.over(101, 59_000)).toBe(false);
    // Block 100's wait would be over by now; block 101's began at 59 s.
    expect(hold.over(101, 61_000)).toBe(false);
    expect(hold.over(101, 119_000)).toBe(true);
  });

  it("behavior: a hold of 0 releases at the first refusal", () => {
    expect(makeUntraceHold(0).over(7, 5)).toBe(true);
  });
});
