import type { Hex } from "viem";

/**
 * Hand-rolled ABI codec for Multicall3's `aggregate3((address,bool,bytes)[])`
 * and its `(bool,bytes)[]` result. A balances request encodes and decodes one
 * of these with hundreds of entries; viem's generic coder spent more time on it
 * than the node took to execute the call. Layout per the Solidity ABI: a head
 * of offsets, then each dynamic tuple; all words are 32 bytes.
 */
const SELECTOR = "82ad56cb";

const word = (n: number) => n.toString(16).padStart(64, "0");

export interface Call3 {
  readonly target: string;
  readonly callData: Hex;
}

export interface Result3 {
  readonly success: boolean;
  readonly returnData: Hex;
}

export const encodeAggregate3 = (calls: ReadonlyArray<Call3>): Hex => {
  const tails: Array<string> = [];
  const offsets: Array<string> = [];
  let offset = calls.length * 32;
  for (const call of calls) {
    const data = call.callData.slice(2);
    const length = data.length / 2;
    const padded = data.padEnd(Math.ceil(length / 32) * 64, "0");
    // target, allowFailure = true, offset of bytes within the tuple (3 words), length, data
    const tuple = `${call.target.slice(2).toLowerCase().padStart(64, "0")}${word(1)}${word(96)}${word(length)}${padded}`;
    offsets.push(word(offset));
    tails.push(tuple);
    offset += tuple.length / 2;
  }
  return `0x${SELECTOR}${word(32)}${word(calls.length)}${offsets.join("")}${tails.join("")}`;
};

export const decodeAggregate3 = (data: Hex): ReadonlyArray<Result3> => {
  const hex = data.slice(2);
  const read = (byteOffset: number) => Number.parseInt(hex.slice(byteOffset * 2, byteOffset * 2 + 64), 16);
  const arrayStart = read(0);
  const count = read(arrayStart);
  const head = arrayStart + 32;
  const results: Array<Result3> = new Array(count);
  for (let i = 0; i < count; i++) {
    const tuple = head + read(head + i * 32);
    const success = read(tuple) !== 0;
    const bytesStart = tuple + read(tuple + 32);
    const length = read(bytesStart);
    results[i] = {
      success,
      returnData: `0x${hex.slice((bytesStart + 32) * 2, (bytesStart + 32 + length) * 2)}` as Hex,
    };
  }
  return results;
};
