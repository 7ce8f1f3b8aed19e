import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import { classifyToken, standardProbeCalls } from "../../../src/balances/tokenStandard.js";
import type { RawResult } from "../../../src/chains/multicall3.js";

const word = (value: bigint): RawResult => ({
  success: true,
  returnData: `0x${value.toString(16).padStart(64, "0")}` as Hex,
});
const TRUE = word(1n);
const FALSE = word(0n);
const REVERT: RawResult = { success: false, returnData: "0x" };
const EMPTY: RawResult = { success: true, returnData: "0x" };

describe("classifyToken", () => {
  it("default: a balance and no ERC-165 claims is an ERC-20", () => {
    expect(classifyToken(word(10n), [REVERT, REVERT, REVERT])).toBe("erc20");
    expect(classifyToken(word(0n), [FALSE, FALSE, FALSE])).toBe("erc20");
  });

  it("behavior: ERC-721 and ERC-1155 contracts are known by their ERC-165 claims, even with a balance", () => {
    expect(classifyToken(word(10n), [FALSE, TRUE, FALSE])).toBe("erc721");
    expect(classifyToken(REVERT, [FALSE, FALSE, TRUE])).toBe("erc1155");
  });

  it("behavior: a contract that claims the invalid interface id too is taken at its balance", () => {
    expect(classifyToken(word(5n), [TRUE, TRUE, TRUE])).toBe("erc20");
  });

  it("error: no usable balanceOf(address) is not an ERC-20", () => {
    expect(classifyToken(EMPTY, [EMPTY, EMPTY, EMPTY])).toBe("no_balance_of");
    expect(classifyToken(REVERT, [REVERT, REVERT, REVERT])).toBe("no_balance_of");
    expect(classifyToken(undefined, [])).toBe("no_balance_of");
    // Not a bool: 32 bytes holding 2, or a longer answer, is no claim.
    expect(classifyToken(word(1n), [FALSE, word(2n), FALSE])).toBe("erc20");
  });

  it("args: the probes ask supportsInterface for the invalid id, ERC-721 and ERC-1155", () => {
    expect(standardProbeCalls("0xabc").map((c) => [c.target, c.callData.slice(0, 18)])).toEqual([
      ["0xabc", "0x01ffc9a7ffffffff"],
      ["0xabc", "0x01ffc9a780ac58cd"],
      ["0xabc", "0x01ffc9a7d9b67a26"],
    ]);
  });
});
