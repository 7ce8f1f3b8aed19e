import { Either } from "effect";
import { describe, expect, it } from "vitest";
import { chainOfBlockNumber } from "../../../src/chains/chainOfBlockNumber.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";

const ethereum = testChainConfig({ chain_id: 1, name: "ethereum" });
const base = testChainConfig({ chain_id: 8453, name: "base" });

const refused = (selected: Parameters<typeof chainOfBlockNumber>[0], given: boolean) => {
  const result = chainOfBlockNumber(selected, given);
  if (Either.isRight(result)) throw new Error("accepted");
  return result.left;
};

describe("chainOfBlockNumber", () => {
  it("default: exactly one chain in chain_ids is the chain the height is read on", () => {
    expect(chainOfBlockNumber({ chains: [ethereum], unsupported: [] }, true)).toEqual(Either.right(ethereum));
  });

  it("behavior: one id the endpoint does not serve is still one chain, answered without a read", () => {
    expect(chainOfBlockNumber({ chains: [], unsupported: [999] }, true)).toEqual(Either.right(undefined));
  });

  it("error: several chains, or a tag that expands to several, are refused naming them", () => {
    const error = refused({ chains: [base, ethereum], unsupported: [999] }, true);
    expect(error.code).toBe("BLOCK_NUMBER_NEEDS_ONE_CHAIN");
    expect(error.message).toContain("it names 3: 1, 999, 8453");
  });

  it("error: no chain_ids is refused even when the default set is one chain (defaults change)", () => {
    expect(refused({ chains: [ethereum, base], unsupported: [] }, false).message).toContain(
      "without chain_ids it means the 2 default chains",
    );
    expect(refused({ chains: [ethereum], unsupported: [] }, false).code).toBe("BLOCK_NUMBER_NEEDS_ONE_CHAIN");
  });
});
