import { describe, expect, it } from "vitest";
import { FIRST_LOGS_RANGE, LogsRangeTuner } from "../../../../src/chains/rpc/LogsRangeTuner.js";

describe("LogsRangeTuner", () => {
  it("default: starts at 500 blocks, or at the configured ceiling when lower", () => {
    expect(new LogsRangeTuner(10_000).size).toBe(FIRST_LOGS_RANGE);
    expect(new LogsRangeTuner(100).size).toBe(100);
  });

  it("behavior: a stated cap becomes a ceiling: growth never asks past it again", () => {
    const tuner = new LogsRangeTuner(10_000);
    expect(tuner.refused({ limit: 50 }, 500)).toBe(50);
    for (let i = 0; i < 200; i++) tuner.answered(tuner.size, 0);
    expect(tuner.size).toBe(50);
    expect(tuner.ceiling).toBe(50);
  });

  it("behavior: a suggested range is used as given, then grows back 5 % per full answer", () => {
    const tuner = new LogsRangeTuner(10_000);
    expect(tuner.refused({ suggested: { from: 1_000, to: 1_099 } }, 500)).toBe(100);
    expect(tuner.size).toBe(100);
    tuner.answered(100, 0);
    expect(tuner.size).toBe(105);
    for (let i = 0; i < 40; i++) tuner.answered(tuner.size, 0);
    expect(tuner.size).toBeGreaterThan(500);
    // A short tail (the end of a range) is not a reason to grow.
    const before = tuner.size;
    tuner.answered(3, 0);
    expect(tuner.size).toBe(before);
  });

  it("behavior: a refusal that says nothing halves the range, down to one block", () => {
    const tuner = new LogsRangeTuner(10_000);
    expect(tuner.refused({}, 500)).toBe(250);
    expect(tuner.refused({}, 1)).toBe(1);
  });

  it("behavior: once a refusal named the result cap, ranges grow back by the logs' density, not 5 % a call", () => {
    const tuner = new LogsRangeTuner(10_000);
    // reth: at most 20,000 logs; a dense stretch left 3 blocks.
    expect(tuner.refused({ suggested: { from: 100, to: 102 }, resultCap: 20_000 }, 500)).toBe(3);
    // 3 blocks gave 1,500 logs (500 a block): the next range grows, at most 4-fold a step...
    tuner.answered(3, 1_500);
    expect(tuner.size).toBe(12);
    // ...towards half the cap at that density: 20 blocks.
    tuner.answered(12, 6_000);
    expect(tuner.size).toBe(20);
    // Sparse blocks again: back to hundreds in a few calls.
    tuner.answered(20, 100);
    tuner.answered(tuner.size, 200);
    expect(tuner.size).toBeGreaterThanOrEqual(320);
  });

  it("behavior: growth stops at the configured ceiling", () => {
    const tuner = new LogsRangeTuner(600);
    for (let i = 0; i < 100; i++) tuner.answered(tuner.size, 0);
    expect(tuner.size).toBe(600);
  });
});
