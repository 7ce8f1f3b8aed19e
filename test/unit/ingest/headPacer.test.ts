import { describe, expect, it } from "vitest";
import { makeHeadPacer } from "../../../src/ingest/headPacer.js";

const BASE_MS = 250;

/**
 * A follower at the head of a chain whose blocks appear at `arrivals` (ms), polling as the
 * follower does: again at once after a poll that found a new block (it reads and publishes it),
 * else after the pacer's delay. Answers the polls made after the first `warmUp` blocks, per block
 * after them, and the longest time a block waited to be seen.
 */
const follow = (arrivals: ReadonlyArray<number>, warmUp: number) => {
  const pacer = makeHeadPacer(BASE_MS);
  const end = arrivals.at(-1)! + 1;
  let now = 0;
  let seen = 0;
  let polls = 0;
  let worstWaitMs = 0;
  const delays: Array<{ at: number; delay: number }> = [];
  while (now <= end) {
    let head = 0;
    while (head < arrivals.length && arrivals[head]! <= now) head++;
    pacer.observe(1000 + head, now);
    if (seen >= warmUp) polls++;
    if (head > seen) {
      for (let b = seen; b < head; b++)
        if (b >= warmUp) worstWaitMs = Math.max(worstWaitMs, now - arrivals[b]!);
      seen = head;
      now += 1;
      continue;
    }
    const delay = pacer.delayMs(now);
    delays.push({ at: now, delay });
    now += delay;
  }
  return { pollsPerBlock: polls / (arrivals.length - warmUp), worstWaitMs, delays };
};

const everyMs = (interval: number, count: number, jitter: (i: number) => number = () => 0) =>
  Array.from({ length: count }, (_, i) => 1_000 + i * interval + jitter(i));

describe("head pacer", () => {
  it("polls a slot-timed chain (12 s blocks) a third as often, and sees each block as soon as before", () => {
    const paced = follow(everyMs(12_000, 40), 12);
    // At the base rate alone: 48 polls a block.
    expect(paced.pollsPerBlock).toBeLessThan(16);
    expect(paced.worstWaitMs).toBeLessThanOrEqual(BASE_MS);
  });

  it("keeps the base rate for a chain whose blocks come on demand, irregularly", () => {
    const gaps = [300, 7_000, 1_200, 4_500, 600, 9_000, 2_500, 800, 5_000, 3_300, 12_000, 400, 6_100, 900];
    const arrivals: Array<number> = [];
    for (const gap of gaps) arrivals.push((arrivals.at(-1) ?? 0) + gap);
    const run = follow([...arrivals, ...arrivals.map((t) => t + arrivals.at(-1)!)], 0);
    expect(run.delays.every(({ delay }) => delay === BASE_MS)).toBe(true);
    expect(run.worstWaitMs).toBeLessThanOrEqual(BASE_MS);
  });

  it("keeps the base rate for a chain faster than a few polls a block (Base, 200 ms)", () => {
    const run = follow(everyMs(200, 200), 0);
    expect(run.delays.every(({ delay }) => delay === BASE_MS)).toBe(true);
  });

  it("polls at the base rate until a chain has shown its pace over several blocks", () => {
    const run = follow(everyMs(12_000, 8), 0);
    expect(run.delays.every(({ delay }) => delay === BASE_MS)).toBe(true);
  });

  it("polls at the base rate once a block is due, for as long as it is late (a missed slot)", () => {
    const arrivals = everyMs(12_000, 20);
    // Slot 16 is missed: its block comes a slot later, and the chain goes on from there.
    const missed = [...arrivals.slice(0, 16), ...arrivals.slice(16).map((t) => t + 12_000)];
    const run = follow(missed, 12);
    expect(run.worstWaitMs).toBeLessThanOrEqual(BASE_MS);
    const due = arrivals[16]! - 2_000;
    const whileLate = run.delays.filter(({ at }) => at >= due && at < missed[16]!);
    expect(whileLate.length).toBeGreaterThan(0);
    expect(whileLate.every(({ delay }) => delay === BASE_MS)).toBe(true);
  });

  it("does not time a block that came with others (catching up): base rate until one comes alone", () => {
    const pacer = makeHeadPacer(BASE_MS);
    let now = 0;
    for (let head = 100; head < 112; head++) {
      pacer.observe(head, now);
      now += 12_000;
    }
    pacer.observe(111, now - 11_999);
    expect(pacer.delayMs(now - 11_990)).toBe(2_000);
    // Three blocks at once: when the newest came is not known.
    pacer.observe(114, now);
    expect(pacer.delayMs(now + 10)).toBe(BASE_MS);
    // The next one alone is an arrival again.
    pacer.observe(115, now + 12_000);
    expect(pacer.delayMs(now + 12_010)).toBe(2_000);
  });

  it("ignores a lower head from a lagging endpoint", () => {
    const pacer = makeHeadPacer(BASE_MS);
    let now = 0;
    for (let head = 100; head < 112; head++) {
      pacer.observe(head, now);
      now += 12_000;
    }
    const last = now - 12_000;
    pacer.observe(109, last + 500);
    expect(pacer.delayMs(last + 600)).toBe(2_000);
  });
});
