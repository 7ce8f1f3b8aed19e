import { Effect, Exit } from "effect";
import { describe, expect, it } from "vitest";
import { ChainConfig, NativeAsset } from "../../../src/chains/ChainsConfig.js";
import { readEachChain } from "../../../src/chains/readEachChain.js";
import { ChainRpcError } from "../../../src/chains/rpc/ChainRpcError.js";

const chain = new ChainConfig({
  chain_id: 1,
  name: "ethereum",
  rpc_url: "http://127.0.0.1:1",
  tags: ["default"],
  native: new NativeAsset({ symbol: "ETH", name: "Ether", decimals: 18 }),
});

const lacksBlock = (block: number) =>
  new ChainRpcError({
    chainId: 1,
    method: "eth_call",
    reason: "HistoryUnavailable",
    detail: `block ${block} not found`,
  });

/** A node whose head is `head`: a read above it fails as the node says it does. */
const readFrom = (head: number, asked: number[]) => async (_: ChainConfig, at: { number: number }) => {
  asked.push(at.number);
  if (at.number > head) throw lacksBlock(at.number);
  return `balance at ${at.number}`;
};

describe("readEachChain when the index is ahead of the node", () => {
  it("behavior: after a reorg to a shorter branch, the chain is read at the node's head instead of failing", async () => {
    const asked: number[] = [];
    const result = await Effect.runPromise(
      readEachChain({
        chains: [chain],
        blockOf: async () => ({ number: 101, hash: "0xorphan" }),
        read: readFrom(100, asked),
        what: "Balances",
        deadlineMs: 1_000,
        nodeHead: async () => 100,
      }),
    );
    expect(result.failures).toEqual([]);
    expect(result.reads.map((r) => [r.block, r.value])).toEqual([[100, "balance at 100"]]);
    expect(asked).toEqual([101, 100]);
  });

  it("behavior: after a reorg the index has not followed yet, the orphaned block's height is read by number on the node's branch", async () => {
    const asked: Array<string> = [];
    const result = await Effect.runPromise(
      readEachChain({
        chains: [chain],
        blockOf: async () => ({ number: 101, hash: "0xorphan" }),
        read: async (_, at) => {
          asked.push(at.hash ?? String(at.number));
          if (at.hash === "0xorphan") throw lacksBlock(at.number);
          return `balance at ${at.number}`;
        },
        what: "Balances",
        deadlineMs: 1_000,
        nodeHead: async () => 103,
      }),
    );
    expect(result.reads.map((r) => [r.block, r.value])).toEqual([[101, "balance at 101"]]);
    expect(asked).toEqual(["0xorphan", "101"]);
  });

  it("behavior: a node that has the block but cannot serve it (pruned state) still fails the chain, read once", async () => {
    const asked: number[] = [];
    const exit = await Effect.runPromiseExit(
      readEachChain({
        chains: [chain],
        blockOf: async () => ({ number: 50 }),
        read: async (_, at) => {
          asked.push(at.number);
          throw lacksBlock(at.number);
        },
        what: "Balances",
        deadlineMs: 1_000,
        nodeHead: async () => 100,
      }),
    );
    expect(Exit.isFailure(exit)).toBe(true);
    expect(String(exit)).toContain("CHAINS_UNAVAILABLE");
    expect(asked).toEqual([50]);
  });

  it("behavior: without a node head (a kept page's block) the failure stands", async () => {
    const asked: number[] = [];
    const exit = await Effect.runPromiseExit(
      readEachChain({
        chains: [chain],
        blockOf: async () => ({ number: 101 }),
        read: readFrom(100, asked),
        what: "Balances",
        deadlineMs: 1_000,
        nodeHead: async () => undefined,
      }),
    );
    expect(Exit.isFailure(exit)).toBe(true);
    expect(asked).toEqual([101]);
  });
});
