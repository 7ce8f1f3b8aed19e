import { describe, expect, it } from "vitest";
import type { Checkpoint } from "../../../src/ingest/CheckpointStore.js";
import { type PublishedEvent, takeIn } from "../../../src/ingest/publishedAfter.js";

const ref = (number: number, branch = "a") => ({
  number,
  hash: `0x${branch}${number}`,
  parentHash: `0x${branch}${number - 1}`,
});
let seq = 100;
const block = (number: number, branch = "a"): PublishedEvent => ({
  kind: "block",
  ref: ref(number, branch),
  seq: seq++,
});
const reorg = (ancestor: number): PublishedEvent => ({ kind: "reorg", ancestor, seq: seq++ });
const held = (numbers: ReadonlyArray<number>, start = numbers[0] ?? 9): Checkpoint => ({
  window: numbers.map((n) => ref(n)),
  historyUntil: 0,
  start,
  seq: 99,
  stream: "s",
});
const tips = (checkpoint: Checkpoint) => checkpoint.window.map((r) => r.number);

describe("taking in what was published after a checkpoint", () => {
  it("default: blocks in order extend the window, and the checkpoint names the last message's sequence", () => {
    const events = [block(11), block(12)];
    const { taken, stray } = takeIn(held([9, 10]), events, 64);
    expect(tips(taken)).toEqual([9, 10, 11, 12]);
    expect(taken.seq).toBe(events.at(-1)!.seq);
    expect(stray).toEqual([]);
  });

  it("behavior: a reorg rewinds the window and moves the epoch; blocks after it extend again", () => {
    const { taken, stray } = takeIn(held([9, 10, 11]), [reorg(9), block(10, "b"), block(11, "b")], 64);
    expect(taken.window.map((r) => r.hash)).toEqual(["0xa9", "0xb10", "0xb11"]);
    expect(taken.reorgs).toBe(1);
    expect(stray).toEqual([]);
  });

  it("behavior: blocks above a missing one are strays, highest first, and the missing one after them too", () => {
    const { taken, stray } = takeIn(held([9, 10]), [block(12), block(13), block(11)], 64);
    expect(tips(taken)).toEqual([9, 10]);
    expect(stray.map((r) => r.number)).toEqual([13, 12, 11]);
  });

  it("edge: above an empty window only the block at its start extends it", () => {
    expect(takeIn(held([], 9), [block(9), block(10)], 64).stray).toEqual([]);
    const { taken, stray } = takeIn(held([], 9), [block(10), block(11)], 64);
    expect(tips(taken)).toEqual([]);
    expect(stray.map((r) => r.number)).toEqual([11, 10]);
  });

  it("edge: blocks at or below the tip (skipped by the index) change nothing; the window keeps its depth", () => {
    const { taken } = takeIn(held([9, 10]), [block(10, "b"), block(11), block(12), block(13)], 3);
    expect(tips(taken)).toEqual([11, 12, 13]);
  });

  it("edge: a reorg below strays removes them: consumers reverted them already", () => {
    const { taken, stray } = takeIn(held([9, 10]), [block(12), reorg(9), block(10, "b")], 64);
    expect(stray).toEqual([]);
    expect(taken.window.map((r) => r.hash)).toEqual(["0xa9", "0xb10"]);
  });
});
