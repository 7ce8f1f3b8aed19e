import { decodeFunctionData, encodeFunctionResult, type Hex, parseAbi, toFunctionSelector } from "viem";
import { describe, expect, it } from "vitest";
import type { ChainRpc } from "../../../src/chains/rpc/ChainRpc.js";
import { LENDING_LENS_ADDRESS } from "../../../src/positions/lens/lendingLens.js";
import { readHealthFactors } from "../../../src/webhooks/alerts/readHealthFactors.js";

const multicall = parseAbi([
  "struct Call3 { address target; bool allowFailure; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function aggregate3(Call3[] calls) payable returns (Result[] returnData)",
]);
const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const COMET = address(0xd0);
const BORROWER = address(0xb0b0_0001);
const SAVER = address(0xb0b0_0002);
const BORROW_BALANCE = toFunctionSelector("borrowBalanceOf(address)");
const BLOCK = { number: 7, hash: `0x${"7".repeat(64)}` };
const word = (n: bigint) => n.toString(16).padStart(64, "0");

/**
 * A node over one Comet: the borrower owes 500 (weighted collateral 600), the saver nothing. Each
 * eth_call is recorded with the calls its aggregate3 carries (`borrowBalanceOf` or `lens`).
 */
const fakeNode = () => {
  const calls: Array<{ at: unknown; kinds: ReadonlyArray<string> }> = [];
  const rpc = {
    request: async (_method: string, params: ReadonlyArray<unknown>) => {
      const { data } = params[0] as { data: Hex };
      const [batch] = decodeFunctionData({ abi: multicall, data }).args as unknown as [
        ReadonlyArray<{ target: string; callData: Hex }>,
      ];
      const owes = (callData: Hex) => callData.endsWith(BORROWER.slice(2));
      calls.push({
        at: params[1],
        kinds: batch.map((c) =>
          c.target.toLowerCase() === LENDING_LENS_ADDRESS ? "lens" : "borrowBalanceOf",
        ),
      });
      const results = batch.map((c) => {
        if (c.callData.startsWith(BORROW_BALANCE))
          return { success: true, returnData: `0x${word(owes(c.callData) ? 500n : 0n)}` as Hex };
        const standing = owes(c.callData) ? [600n, 500n, 1n, 2n] : [0n, 0n, 1n, 2n];
        return { success: true, returnData: `0x${standing.map(word).join("")}` as Hex };
      });
      return encodeFunctionResult({ abi: multicall, functionName: "aggregate3", result: results });
    },
  } as unknown as ChainRpc;
  return { rpc, calls };
};

describe("reading health factors", () => {
  it("default: probed Comet accounts are asked their debt first; only the indebted one the lens, at the same block", async () => {
    const { rpc, calls } = fakeNode();
    const reads = await readHealthFactors(
      rpc,
      [
        { wallet: BORROWER, pool: COMET, design: "comet", probe: true },
        { wallet: SAVER, pool: COMET, design: "comet", probe: true },
      ],
      BLOCK,
    );
    expect(reads).toEqual([
      { wallet: BORROWER, pool: COMET, healthFactor: 1.2 },
      { wallet: SAVER, pool: COMET, healthFactor: null },
    ]);
    expect(calls.map((c) => c.kinds)).toEqual([["borrowBalanceOf", "borrowBalanceOf"], ["lens"]]);
    expect(calls.every((c) => JSON.stringify(c.at) === JSON.stringify({ blockHash: BLOCK.hash }))).toBe(true);
  });

  it("behavior: an account known to have debt goes straight to the lens, in one multicall", async () => {
    const { rpc, calls } = fakeNode();
    const reads = await readHealthFactors(rpc, [{ wallet: BORROWER, pool: COMET, design: "comet" }], BLOCK);
    expect(reads).toEqual([{ wallet: BORROWER, pool: COMET, healthFactor: 1.2 }]);
    expect(calls.map((c) => c.kinds)).toEqual([["lens"]]);
  });
});
