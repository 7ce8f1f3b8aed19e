import type { RawResult } from "../../chains/multicall3.js";
import { uintWord } from "../../chains/rawCalls.js";

/** Words a dynamic array may hold at most here: a longer one is a hostile or broken answer, not a list to read. */
const MAX_ITEMS = 100_000;

/**
 * The `uintN[]`/`address[]` whose offset is at word `at` of a successful result (the ABI's head/tail
 * layout: the head word holds the byte offset of the length word, the items follow it). Undefined when
 * the call failed or the answer is shorter than its own length says, so a broken answer reads as none.
 */
export const wordArray = (result: RawResult | undefined, at: number): ReadonlyArray<bigint> | undefined => {
  const offset = uintWord(result, at);
  if (offset === undefined || offset % 32n !== 0n) return undefined;
  const start = Number(offset / 32n);
  const length = uintWord(result, start);
  if (length === undefined || length > BigInt(MAX_ITEMS)) return undefined;
  const items: Array<bigint> = [];
  for (let i = 0; i < Number(length); i++) {
    const item = uintWord(result, start + 1 + i);
    if (item === undefined) return undefined;
    items.push(item);
  }
  return items;
};

/** A word as a lower-case address (its low 20 bytes). */
export const toAddress = (word: bigint): string => `0x${word.toString(16).padStart(40, "0").slice(-40)}`;

/** The `address[]` whose offset is at word `at`, lower-case. */
export const addressArray = (result: RawResult | undefined, at: number): ReadonlyArray<string> | undefined =>
  wordArray(result, at)?.map(toAddress);

export const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";
