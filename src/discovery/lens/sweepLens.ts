import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Hex, toFunctionSelector } from "viem";
import type { RawCall, RawResult } from "../../chains/multicall3.js";
import { lensCode } from "../../lib/lensCode.js";

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), "BalanceSweepLens.sol");

/**
 * Where BalanceSweepLens.sol's code is placed by state override: the last 20 bytes of
 * keccak256("wallet-data-service/BalanceSweepLens"), an address with no code on any chain.
 */
export const SWEEP_LENS_ADDRESS = "0x6bd1e31b944cbdd931f4e7d36d3819977ae1efcb";

/** Runtime code of BalanceSweepLens.sol, compiled on first use and cached (see `lensCode`). */
export const sweepLensCode = (): Promise<Hex> => lensCode(SOURCE, "BalanceSweepLens");

const BALANCES = toFunctionSelector("balances(address,address[])");

/** An address as one ABI word. */
const addressWord = (address: string) => address.slice(2).toLowerCase().padStart(64, "0");

/**
 * `balances(owner, tokens)` of the lens, encoded by hand (the owner's word, the array's offset,
 * its length, one word per token): a first answer builds one per chain before its first call.
 */
export const sweepCall = (code: Hex, owner: string, tokens: ReadonlyArray<string>): RawCall => ({
  target: SWEEP_LENS_ADDRESS,
  callData:
    `${BALANCES}${addressWord(owner)}${(64).toString(16).padStart(64, "0")}${tokens.length.toString(16).padStart(64, "0")}${tokens.map(addressWord).join("")}` as Hex,
  code,
});

/**
 * The balances a `sweepCall` answered, one per token asked; undefined when the call failed or
 * answered a different number of words (the batch is then read again in smaller parts).
 */
export const decodeSweep = (
  result: RawResult | undefined,
  count: number,
): ReadonlyArray<bigint> | undefined => {
  if (result === undefined || !result.success) return undefined;
  const data = result.returnData.slice(2);
  // offset word, length word, then one word per token
  if (data.length !== (2 + count) * 64) return undefined;
  if (BigInt(`0x${data.slice(64, 128)}`) !== BigInt(count)) return undefined;
  const out: Array<bigint> = [];
  for (let i = 0; i < count; i++) out.push(BigInt(`0x${data.slice((2 + i) * 64, (3 + i) * 64)}`));
  return out;
};
