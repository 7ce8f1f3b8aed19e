import { encodeAbiParameters, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { cappedBalanceReads } from "../../../src/balances/cappedBalanceReads.js";
import { aggregate3 } from "../../../src/chains/multicall3.js";
import { answerAggregate3, isLensCall } from "../../support/aggregate3Answers.js";
import { fakeChainRpc } from "../../support/chainRpc.js";

const WALLET = `0x${"ab".repeat(20)}`;
const tokenAt = (i: number) => `0x${(0x1000 + i).toString(16).padStart(40, "0")}`;

/**
 * A node that ignores eth_call state overrides, as a few chains' nodes do: the lens's address has no
 * code there, so a call to it succeeds with no data. Each token's plain `balanceOf` answers 10 x its
 * index. Counts the eth_calls.
 */
const nodeWithoutOverrides = () => {
  let ethCalls = 0;
  const client = fakeChainRpc((requests) => ({
    kind: "answers",
    answers: requests.map((request) => {
      ethCalls++;
      const data = (request.params as Array<{ data: Hex }>)[0]!.data;
      const { result } = answerAggregate3(data, (call) => {
        if (isLensCall(call)) return [true, "0x"];
        const i = Number.parseInt(call.target.slice(2), 16) - 0x1000;
        return [true, encodeAbiParameters([{ type: "uint256" }], [BigInt(10 * i)])];
      });
      return { ok: true as const, result };
    }),
  }));
  return { client, ethCalls: () => ethCalls };
};

describe("gas-capped balance reads", () => {
  it("behavior: on a node that ignores state overrides, the balances are read with a plain balanceOf each, exactly", async () => {
    const node = nodeWithoutOverrides();
    const pairs = Array.from({ length: 5 }, (_, i) => ({ wallet: WALLET, token: tokenAt(i + 1) }));
    const reads = await cappedBalanceReads(node.client, pairs);
    const results = await aggregate3(node.client, reads.calls, { block: { number: 7 } });
    expect(await reads.amounts(results, { number: 7 })).toEqual([10n, 20n, 30n, 40n, 50n]);
    // The lens's read, then the plain one.
    expect(node.ethCalls()).toBe(2);
  });
});
