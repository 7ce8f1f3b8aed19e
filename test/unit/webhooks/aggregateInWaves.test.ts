import { decodeFunctionData, encodeFunctionResult, type Hex, parseAbi } from "viem";
import { describe, expect, it } from "vitest";
import { splitCalls } from "../../../src/chains/multicall3.js";
import { rawCall } from "../../../src/chains/rawCalls.js";
import type { ChainRpc } from "../../../src/chains/rpc/ChainRpc.js";
import { aggregateInWaves } from "../../../src/webhooks/alerts/aggregateInWaves.js";

const multicall = parseAbi([
  "struct Call3 { address target; bool allowFailure; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function aggregate3(Call3[] calls) payable returns (Result[] returnData)",
]);
const BLOCK = { number: 7, hash: `0x${"7".repeat(64)}` };

/** A node that answers each call with its own calldata, and counts the eth_calls in flight. */
const echoNode = () => {
  const seen = { inFlight: 0, most: 0, calls: 0, at: new Set<string>() };
  const rpc = {
    request: async (_method: string, params: ReadonlyArray<unknown>) => {
      seen.calls += 1;
      seen.inFlight += 1;
      seen.most = Math.max(seen.most, seen.inFlight);
      seen.at.add(JSON.stringify(params[1]));
      await Promise.resolve();
      const { data } = params[0] as { data: Hex };
      const [batch] = decodeFunctionData({ abi: multicall, data }).args as unknown as [
        ReadonlyArray<{ callData: Hex }>,
      ];
      seen.inFlight -= 1;
      const result = batch.map((c) => ({ success: true, returnData: c.callData }));
      return encodeFunctionResult({ abi: multicall, functionName: "aggregate3", result });
    },
  } as unknown as ChainRpc;
  return { rpc, seen };
};

describe("aggregate3 in waves", () => {
  it("default: a batch of many eth_calls goes a few at a time, all at the block, answers in order", async () => {
    const calls = Array.from({ length: 12_000 }, (_, i) => rawCall(`0x${"ab".repeat(20)}`, "f(uint256)", i));
    const chunks = splitCalls(calls).length;
    expect(chunks).toBeGreaterThan(4);
    const { rpc, seen } = echoNode();
    const results = await aggregateInWaves(rpc, calls, BLOCK, 2);
    expect(results.map((r) => r.returnData)).toEqual(calls.map((c) => c.callData));
    expect(seen).toMatchObject({ calls: chunks, most: 2 });
    expect([...seen.at]).toEqual([JSON.stringify({ blockHash: BLOCK.hash })]);
  });
});
