import { describe, expect, it } from "vitest";
import type { RawResult } from "../../../src/chains/multicall3.js";
import { LENDING_LENS_ADDRESS } from "../../../src/positions/lens/lendingLens.js";
import { decodeHealth, healthCall } from "../../../src/webhooks/alerts/healthCalls.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const WALLET = address(0xb0b);
const MARKET = address(0xc0);
const answer = (...words: ReadonlyArray<bigint>): RawResult => ({
  success: true,
  returnData: `0x${words.map((w) => w.toString(16).padStart(64, "0")).join("")}`,
});
const MAX = (1n << 256n) - 1n;

describe("health calls", () => {
  it("default: an Aave pool is asked getUserAccountData; a comptroller and a Comet the lens, its code alongside", () => {
    expect(healthCall({ wallet: WALLET, pool: MARKET, design: "aave" }, "0xfe")).toMatchObject({
      target: MARKET,
    });
    for (const design of ["ctoken", "comet"] as const) {
      const call = healthCall({ wallet: WALLET, pool: MARKET, design }, "0xfe");
      expect(call).toMatchObject({ target: LENDING_LENS_ADDRESS, code: "0xfe" });
      expect(call.callData.slice(10)).toBe(
        `${MARKET.slice(2).padStart(64, "0")}${WALLET.slice(2).padStart(64, "0")}`,
      );
    }
  });

  it("behavior: Aave's sixth word is the health factor, type(uint256).max without debt", () => {
    expect(decodeHealth("aave", answer(1n, 2n, 3n, 4n, 5n, 1_250_000_000_000_000_000n))).toBe(1.25);
    expect(decodeHealth("aave", answer(1n, 0n, 3n, 4n, 5n, MAX))).toBeNull();
  });

  it("behavior: the lens's weighted collateral over debt, as the positions endpoint divides it; null without debt", () => {
    expect(decodeHealth("ctoken", answer(3n * 10n ** 18n, 2n * 10n ** 18n))).toBe(1.5);
    expect(decodeHealth("comet", answer(3n * 10n ** 18n, 0n, 7n, 9n))).toBeNull();
  });

  it("error: a failed call gives no health factor rather than a healthy one", () => {
    const failed: RawResult = { success: false, returnData: "0x" };
    expect(decodeHealth("aave", failed)).toBeUndefined();
    expect(decodeHealth("comet", failed)).toBeUndefined();
  });
});
