import { encodeFunctionData, type Hex, parseAbi } from "viem";
import { describe, expect, it } from "vitest";
import { decodeSweep, sweepCall } from "../../../src/discovery/lens/sweepLens.js";

const ABI = parseAbi(["function balances(address owner, address[] tokens) view returns (uint256[])"]);
const OWNER = "0x00000000000000000000000000000000000000ab";
const tokenAt = (i: number) => `0x${(0xabc000 + i).toString(16).padStart(40, "0")}`;

describe("sweepCall", () => {
  it.each([0, 1, 35, 500])("encodes balances(owner, %i tokens) as an ABI coder does", (count) => {
    const tokens = Array.from({ length: count }, (_, i) => tokenAt(i));
    expect(sweepCall("0x00", OWNER, tokens).callData).toBe(
      encodeFunctionData({ abi: ABI, functionName: "balances", args: [OWNER, tokens as Array<Hex>] }),
    );
  });

  it("reads back one balance per token asked, and refuses an answer of another length", () => {
    const words = [7n, 0n, 2n ** 255n].map((v) => v.toString(16).padStart(64, "0"));
    const answer = `0x${(32).toString(16).padStart(64, "0")}${(3).toString(16).padStart(64, "0")}${words.join("")}`;
    expect(decodeSweep({ success: true, returnData: answer as Hex }, 3)).toEqual([7n, 0n, 2n ** 255n]);
    expect(decodeSweep({ success: true, returnData: answer as Hex }, 4)).toBeUndefined();
  });
});
