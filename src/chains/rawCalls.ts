import { type Hex, toFunctionSelector } from "viem";
import type { RawCall, RawResult } from "./multicall3.js";

/**
 * Hand-built calls and hand-read results for the hot paths that batch hundreds of reads per
 * request: a selector and 32-byte words in, 32-byte words out, with none of an ABI coder's cost.
 */

/** A value as one ABI word: addresses and 32-byte hex as they are, numbers two's complement. */
const toWord = (value: string | bigint | number): string =>
  typeof value === "string"
    ? value.slice(2).padStart(64, "0")
    : BigInt.asUintN(256, BigInt(value)).toString(16).padStart(64, "0");

/** `target.signature(args...)` for static argument types (address, uintN, intN, bytes32). */
export const rawCall = (
  target: string,
  signature: string,
  ...args: ReadonlyArray<string | bigint | number>
): RawCall => ({
  target,
  callData: `${selectorOf(signature)}${args.map(toWord).join("")}` as Hex,
});

const selectors = new Map<string, Hex>();
const selectorOf = (signature: string): Hex => {
  let selector = selectors.get(signature);
  if (selector === undefined) {
    selector = toFunctionSelector(signature);
    selectors.set(signature, selector);
  }
  return selector;
};

/** Word `index` of a successful result as an unsigned integer; undefined when the call failed or answered short. */
export const uintWord = (result: RawResult | undefined, index: number): bigint | undefined => {
  if (result === undefined || !result.success) return undefined;
  const start = 2 + index * 64;
  if (result.returnData.length < start + 64) return undefined;
  return BigInt(`0x${result.returnData.slice(start, start + 64)}`);
};

/** Word `index` as a signed integer of `bits` bits (int24 ticks, int128 liquidity deltas). */
export const intWord = (result: RawResult | undefined, index: number, bits: number): bigint | undefined => {
  const word = uintWord(result, index);
  return word === undefined ? undefined : BigInt.asIntN(bits, word);
};

/** Word `index` as an address. */
export const addressWord = (result: RawResult | undefined, index: number): string | undefined => {
  const word = uintWord(result, index);
  return word === undefined ? undefined : `0x${word.toString(16).padStart(40, "0").slice(-40)}`;
};
