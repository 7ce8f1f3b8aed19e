import { aggregate3 } from "../../chains/multicall3.js";
import { addressWord, rawCall, uintWord } from "../../chains/rawCalls.js";
import type { ChainRpc } from "../../chains/rpc/ChainRpc.js";

/**
 * Listing a V2 factory's pairs without its logs, for history the node no longer keeps: the design
 * keeps every pair in `allPairs`, in creation order, with `allPairsLength()`, and each pair answers
 * `token0()` and `token1()`. Nothing of that ever changes once written, so it is read at the head,
 * whatever the node keeps of older state. Calls go to the factory and its pairs only; a call that
 * reverts or answers short leaves that pair out rather than failing the batch.
 */

/** A pair as its factory lists it. */
export interface ListedPair {
  readonly index: number;
  readonly pair: string;
  readonly token0: string;
  readonly token1: string;
}

const ZERO = "0x0000000000000000000000000000000000000000";

/** `allPairsLength()` of each factory, in one aggregate3; undefined for one that does not answer it. */
export const readPairCounts = async (
  rpc: ChainRpc,
  factories: ReadonlyArray<string>,
): Promise<ReadonlyArray<number | undefined>> => {
  if (factories.length === 0) return [];
  const results = await aggregate3(
    rpc,
    factories.map((factory) => rawCall(factory, "allPairsLength()")),
  );
  return factories.map((_, i) => {
    const count = uintWord(results[i], 0);
    return count === undefined || count > BigInt(Number.MAX_SAFE_INTEGER) ? undefined : Number(count);
  });
};

/**
 * Pairs `from`..`until - 1` of `factory`, with their tokens: one aggregate3 of `allPairs(i)`, then
 * one of every pair's `token0()` and `token1()`.
 */
export const readPairs = async (
  rpc: ChainRpc,
  factory: string,
  from: number,
  until: number,
): Promise<ReadonlyArray<ListedPair>> => {
  if (until <= from) return [];
  const indexes = Array.from({ length: until - from }, (_, i) => from + i);
  const listed = await aggregate3(
    rpc,
    indexes.map((index) => rawCall(factory, "allPairs(uint256)", index)),
  );
  const pairs = indexes.flatMap((index, i) => {
    const pair = addressWord(listed[i], 0);
    return pair === undefined || pair === ZERO ? [] : [{ index, pair }];
  });
  if (pairs.length === 0) return [];
  const tokens = await aggregate3(
    rpc,
    pairs.flatMap(({ pair }) => [rawCall(pair, "token0()"), rawCall(pair, "token1()")]),
  );
  return pairs.flatMap(({ index, pair }, i) => {
    const token0 = addressWord(tokens[2 * i], 0);
    const token1 = addressWord(tokens[2 * i + 1], 0);
    return token0 === undefined || token1 === undefined ? [] : [{ index, pair, token0, token1 }];
  });
};
