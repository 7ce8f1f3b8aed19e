import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { logEvidenceBlocks, oldestAvailable } from "../../../../src/chains/rpc/probeNode.js";

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

describe("logEvidenceBlocks: the headers read for a block with logs", () => {
  it("behavior: the 8 blocks from the one asked about, then pairs 4-fold apart up to 1/64 of the distance to the head", () => {
    const blocks = [...logEvidenceBlocks(0, 25_000_000)];
    expect(blocks.slice(0, 8)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(blocks.slice(8)).toEqual([
      16, 17, 64, 65, 256, 257, 1_024, 1_025, 4_096, 4_097, 16_384, 16_385, 65_536, 65_537, 262_144, 262_145,
    ]);
  });

  it("behavior: no further than the search's precision there, and never past the head", () => {
    expect([...logEvidenceBlocks(0, 140)]).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect([...logEvidenceBlocks(0, 1_112)]).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 16, 17]);
    expect([...logEvidenceBlocks(95, 100)]).toEqual([95, 96, 97, 98, 99, 100]);
  });
});
