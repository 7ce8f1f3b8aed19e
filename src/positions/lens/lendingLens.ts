import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Hex } from "viem";
import type { RawCall, RawResult } from "../../chains/multicall3.js";
import { rawCall, uintWord } from "../../chains/rawCalls.js";
import { lensCode } from "../../lib/lensCode.js";

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), "LendingLens.sol");

/**
 * Where LendingLens.sol's code is placed by state override: the last 20 bytes of
 * keccak256("wallet-data-service/LendingLens"), an address with no code on any chain.
 */
export const LENDING_LENS_ADDRESS = "0x1ae4ae52cacf0ffd3562a867d3b299df87175b46";

/** Runtime code of LendingLens.sol, compiled on first use and cached (see `lensCode`). */
export const lendingLensCode = (): Promise<Hex> => lensCode(SOURCE, "LendingLens");

/** The lens call for an account in a cToken comptroller's markets. */
export const cTokenAccountCall = (code: Hex, comptroller: string, account: string): RawCall => ({
  ...rawCall(LENDING_LENS_ADDRESS, "cTokenAccount(address,address)", comptroller, account),
  code,
});

/** The lens call for an account in a Comet market. */
export const cometAccountCall = (code: Hex, comet: string, account: string): RawCall => ({
  ...rawCall(LENDING_LENS_ADDRESS, "cometAccount(address,address)", comet, account),
  code,
});

/** An account's weighted collateral and debt in one market, in the market's price units. */
export interface AccountStanding {
  readonly collateral: bigint;
  readonly debt: bigint;
  /** Comet only: rates per second, scaled by 1e18. */
  readonly supplyRate?: bigint;
  readonly borrowRate?: bigint;
}

/** Decodes either lens answer; undefined when the call failed. */
export const decodeStanding = (result: RawResult | undefined): AccountStanding | undefined => {
  const collateral = uintWord(result, 0);
  const debt = uintWord(result, 1);
  if (collateral === undefined || debt === undefined) return undefined;
  const supplyRate = uintWord(result, 2);
  const borrowRate = uintWord(result, 3);
  return {
    collateral,
    debt,
    ...(supplyRate === undefined ? {} : { supplyRate }),
    ...(borrowRate === undefined ? {} : { borrowRate }),
  };
};

/** Health factor from a standing: weighted collateral over debt; null without debt. */
export const healthFactor = (standing: AccountStanding | undefined): number | null | undefined =>
  standing === undefined
    ? undefined
    : standing.debt === 0n
      ? null
      : Number(standing.collateral) / Number(standing.debt);
