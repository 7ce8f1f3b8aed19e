import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { oldestAvailable } from "../../../../src/chains/rpc/probeNode.js";

const search = (head: number, oldest: number | undefined) => {
  const asked: Array<number> = [];
  const found = Effect.runSync(
    oldestAvailable(head, (block) =>
      Effect.sync(() => {
        asked.push(block);
        return oldest !== undefined && block >= oldest;
      }),
    ),
  );
  return { found, asked };
};

describe("oldestAvailable: how far back a node keeps state or logs", () => {
  it("behavior: an archive node is settled with one question", () => {
    expect(search(25_000_000, 0)).toEqual({ found: 0, asked: [0] });
  });

  it("behavior: a reth full node's 10,064-block window on a 25M-block chain, within 1/64 of its depth, in about 35 questions", () => {
    const head = 25_000_000;
    const { found, asked } = search(head, head - 10_064);
    expect(found).toBeGreaterThanOrEqual(head - 10_064);
    expect(found! - (head - 10_064)).toBeLessThanOrEqual(10_064 / 64 + 1);
    expect(asked.length).toBeLessThan(40);
  });

  it("behavior: geth's 128 blocks of state are found to the block", () => {
    expect(search(1_000_000, 1_000_000 - 128).found).toBe(1_000_000 - 128);
  });

  it("behavior: pre-merge history dropped (a fixed start, not a window)", () => {
    const { found } = search(21_000_000, 15_537_393);
    expect(found).toBeGreaterThanOrEqual(15_537_393);
    expect(found! - 15_537_393).toBeLessThanOrEqual((21_000_000 - 15_537_393) / 64 + 1);
  });

  it("error: a node with nothing at all, not even its head", () => {
    expect(search(1_000, undefined).found).toBeUndefined();
  });
});
