import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import { ProtocolConfig } from "../../../src/chains/ChainsConfig.js";
import type { RawCall, RawResult } from "../../../src/chains/multicall3.js";
import { chainLateRegistryReads } from "../../../src/indexer/lateRegistryReads.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";

const COMPTROLLER = "0x3d9819210a31b4961b30ef54be2aed79b9c9cd3b";
const C_USDC = "0x39aa39c021dfbae8fac545936693ac917d5e7563";
const LOOK_ALIKE = "0x0bad000000000000000000000000000000000bad";
const USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";

const chain = testChainConfig({
  protocols: [ProtocolConfig.make({ protocol: "CompoundV2", kind: "ctoken", address: COMPTROLLER })],
});

const word = (value: string | bigint) =>
  (typeof value === "string" ? value.slice(2) : value.toString(16)).padStart(64, "0");

/** A chain where the comptroller lists C_USDC only; every call is recorded. */
const fakeChain = () => {
  const asked: Array<string> = [];
  const read = async (calls: ReadonlyArray<RawCall>): Promise<ReadonlyArray<RawResult>> =>
    calls.map((call) => {
      const argument = `0x${call.callData.slice(-40)}`;
      if (call.target === COMPTROLLER) {
        asked.push(argument);
        return { success: true, returnData: `0x${word(argument === C_USDC ? 1n : 0n)}${word(0n)}` as Hex };
      }
      return call.target === C_USDC
        ? { success: true, returnData: `0x${word(USDC)}` as Hex }
        : { success: false, returnData: "0x" };
    });
  return { read, asked };
};

describe("late registry reads", () => {
  it("default: a cToken a registry comptroller lists gets its record; a look-alike gets none", async () => {
    const { read } = fakeChain();
    const late = chainLateRegistryReads(read, chain);
    expect(await late.listedCTokens([C_USDC, LOOK_ALIKE])).toEqual(
      new Map([[C_USDC, { kind: "ctoken", market: COMPTROLLER, side: "supply", asset: USDC }]]),
    );
  });

  it("behavior: a look-alike is not asked about again for an hour, then is", async () => {
    const { read, asked } = fakeChain();
    let now = 1_000_000;
    const late = chainLateRegistryReads(read, chain, () => now);
    await late.listedCTokens([LOOK_ALIKE]);
    now += 59 * 60_000;
    expect(await late.listedCTokens([LOOK_ALIKE])).toEqual(new Map());
    expect(asked).toEqual([LOOK_ALIKE]);
    now += 2 * 60_000;
    await late.listedCTokens([LOOK_ALIKE, C_USDC]);
    expect(asked).toEqual([LOOK_ALIKE, LOOK_ALIKE, C_USDC]);
  });
});
