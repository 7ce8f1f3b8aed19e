import { Effect, Exit } from "effect";
import { describe, expect, it } from "vitest";
import { makePastBlocks, type PastBlockNodes } from "../../../src/chains/pastBlocks.js";
import { ChainRpcError } from "../../../src/chains/rpc/ChainRpcError.js";
import type { ChainCapabilities } from "../../../src/chains/rpc/NodeCapabilities.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";

const chain = testChainConfig({ finality_depth: 10 });
const hashOf = (n: number, branch = "a") => `0x${branch.repeat(2)}${n.toString(16).padStart(62, "0")}`;

/** Nodes whose headers are `header(n)` (null: none), which count the header reads they answer. */
const nodes = (
  options: {
    readonly capabilities?: Partial<ChainCapabilities>;
    readonly header?: (n: number) => { hash: string; timestamp: string } | null | Error;
  } = {},
) => {
  const asked: Array<number> = [];
  const stub = {
    capabilities: () => ({ complete: true, ...options.capabilities }),
    request: async (method: string, params: ReadonlyArray<unknown>) => {
      if (method !== "eth_getBlockByNumber") throw new Error(`unexpected ${method}`);
      const n = Number.parseInt(params[0] as string, 16);
      asked.push(n);
      const header =
        options.header === undefined
          ? { hash: hashOf(n), timestamp: `0x${(1_700_000_000 + n).toString(16)}` }
          : options.header(n);
      if (header instanceof Error) throw header;
      return header;
    },
  } as unknown as PastBlockNodes;
  return { stub, asked };
};

const pastBlocksOver = (stub: PastBlockNodes | undefined, head: number | undefined) =>
  makePastBlocks({ nodes: () => stub, indexedHead: async () => head });

const pruned = (earliest?: number) =>
  new ChainRpcError({
    chainId: 1,
    method: "eth_getBlockByNumber",
    reason: "HistoryUnavailable",
    detail: "missing trie node",
    ...(earliest === undefined ? {} : { earliest }),
  });

describe("makePastBlocks", () => {
  it("default: a height the index has passed is named by its header's hash and time", async () => {
    const { stub } = nodes();
    const found = await pastBlocksOver(stub, 100).find(chain, stub, 100, 42);
    expect(found).toEqual({ block: { number: 42, hash: hashOf(42), timestamp: 1_700_000_042 } });
  });

  it("behavior: final headers are asked for once; headers within the finality depth on every request", async () => {
    const { stub, asked } = nodes();
    const blocks = pastBlocksOver(stub, 100);
    for (let i = 0; i < 3; i++) {
      await blocks.find(chain, stub, 100, 90);
      await blocks.find(chain, stub, 100, 91);
    }
    // 90 is 10 below the head (final at depth 10): kept; 91 may still be reorganised away.
    expect(asked).toEqual([90, 91, 91, 91]);
  });

  it("behavior: after a reorg near the head, the same height reads as the new block", async () => {
    let branch = "a";
    const { stub } = nodes({ header: (n) => ({ hash: hashOf(n, branch), timestamp: "0x10" }) });
    const blocks = pastBlocksOver(stub, 100);
    const before = await blocks.find(chain, stub, 100, 99);
    branch = "b";
    const after = await blocks.find(chain, stub, 100, 99);
    expect(before).not.toEqual(after);
    expect(after).toEqual({ block: { number: 99, hash: hashOf(99, "b"), timestamp: 16 } });
  });

  it("error: a height above the indexed head is refused naming the head", async () => {
    const { stub, asked } = nodes();
    const found = await pastBlocksOver(stub, 100).find(chain, stub, 100, 101);
    expect(found).toEqual({
      refused: {
        code: "BLOCK_NUMBER_AHEAD",
        message:
          "block_number 101 is above the last block ethereum (1) has indexed, 100: ask for block 100 or lower.",
      },
    });
    expect(asked).toEqual([]);
  });

  it("error: a height below the oldest state the nodes keep (as probed) is refused naming that block, without a call", async () => {
    const { stub, asked } = nodes({ capabilities: { stateFrom: 50 } });
    const found = await pastBlocksOver(stub, 100).find(chain, stub, 100, 49);
    expect(found).toEqual({
      refused: {
        code: "BLOCK_STATE_UNAVAILABLE",
        message:
          "ethereum (1)'s RPC nodes keep state from block 50 on, not at block 49: ask for block 50 or later.",
      },
    });
    expect(asked).toEqual([]);
    expect(await pastBlocksOver(stub, 100).find(chain, stub, 100, 50)).toHaveProperty("block");
  });

  it("error: a node that refuses the header as pruned, or has none, is a refusal naming what it keeps", async () => {
    const said = nodes({ header: () => pruned(77) });
    expect(await pastBlocksOver(said.stub, 100).find(chain, said.stub, 100, 60)).toEqual({
      refused: expect.objectContaining({
        code: "BLOCK_STATE_UNAVAILABLE",
        message: expect.stringContaining("keep state from block 77 on, not at block 60"),
      }),
    });
    const silent = nodes({ header: () => null });
    expect(await pastBlocksOver(silent.stub, 100).find(chain, silent.stub, 100, 60)).toEqual({
      refused: expect.objectContaining({
        message: expect.stringContaining("the oldest block they keep is not known yet"),
      }),
    });
  });

  it("error: through `at`, a refusal is a 400 and a failing or unindexed chain a 503", async () => {
    const { stub } = nodes({ capabilities: { stateFrom: 50 } });
    const refusal = await Effect.runPromiseExit(pastBlocksOver(stub, 100).at(chain, 10));
    expect(refusal).toEqual(Exit.fail(expect.objectContaining({ _tag: "InvalidRequest" })));
    const down = nodes({ header: () => new Error("connection refused") });
    const failing = await Effect.runPromiseExit(pastBlocksOver(down.stub, 100).at(chain, 60));
    expect(failing).toEqual(
      Exit.fail(
        expect.objectContaining({
          _tag: "Unavailable",
          message: "Chain ethereum (1) cannot be read right now (connection refused); retry shortly.",
        }),
      ),
    );
    const unindexed = await Effect.runPromiseExit(pastBlocksOver(stub, undefined).at(chain, 60));
    expect(unindexed).toEqual(Exit.fail(expect.objectContaining({ _tag: "Unavailable" })));
  });

  it("behavior: `refusal` turns only a pinned chain's pruned-history failure into a 400", () => {
    const { stub } = nodes({ capabilities: { stateFrom: 50 } });
    const blocks = pastBlocksOver(stub, 100);
    const pinned = new Map([[1, { number: 40 }]]);
    expect(blocks.refusal(pinned)(chain, { number: 40 }, pruned())?._tag).toBe("InvalidRequest");
    expect(blocks.refusal(pinned)(chain, { number: 40 }, new Error("timeout"))).toBeUndefined();
    expect(blocks.refusal(undefined)(chain, { number: 40 }, pruned())).toBeUndefined();
  });
});
