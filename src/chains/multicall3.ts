import { type Hex, toFunctionSelector } from "viem";
import { decodeAggregate3, encodeAggregate3 } from "./aggregate3Codec.js";
import type { BlockRef } from "./readEachChain.js";
import type { ChainRpc } from "./rpc/ChainRpc.js";

/** Multicall3's address on every chain where it is deployed (and on the devnet). */
export const MULTICALL3_ADDRESS = "0xca11bde05977b3631167028862be2a173976ca11";

const GET_ETH_BALANCE = toFunctionSelector("getEthBalance(address)");

export interface RawCall {
  readonly target: string;
  readonly callData: Hex;
  /**
   * Runtime code placed at `target` for this eth_call only (a state override): read-only
   * lens contracts run this way, never deployed, on any node that supports overrides.
   */
  readonly code?: Hex;
}

export interface RawResult {
  readonly success: boolean;
  readonly returnData: Hex;
}

/**
 * Calldata bytes one eth_call may carry (with its overrides' code). Nodes cap a request's body
 * (anvil at 2 MB of JSON, about 4,500 `balanceOf`s; geth at 5 MB) and an eth_call's gas, so a
 * batch beyond this is split. 512 KB is about 2,300 `balanceOf`s: a wallet of 1,200 tokens is
 * still read in one call.
 */
export const MAX_CALL_BYTES = 512 * 1024;

/** ABI size of one Call3 in the batch: its offset, target, allowFailure, bytes offset and length, then the data. */
const encodedSize = (call: RawCall) => 5 * 32 + Math.ceil((call.callData.length - 2) / 64) * 32;

/** `calls` in consecutive runs of at most `MAX_CALL_BYTES` each (a larger single call alone). */
export const splitCalls = (calls: ReadonlyArray<RawCall>): ReadonlyArray<ReadonlyArray<RawCall>> => {
  const chunks: Array<Array<RawCall>> = [];
  let chunk: Array<RawCall> = [];
  let bytes = 0;
  let codes = new Set<string>();
  for (const call of calls) {
    // An override's code is sent once per eth_call, with the first call to its target.
    const codeSize = (chunk: ReadonlySet<string>) =>
      call.code === undefined || chunk.has(call.target) ? 0 : (call.code.length - 2) / 2;
    if (chunk.length > 0 && bytes + encodedSize(call) + codeSize(codes) > MAX_CALL_BYTES) {
      chunks.push(chunk);
      chunk = [];
      bytes = 0;
      codes = new Set();
    }
    chunk.push(call);
    bytes += encodedSize(call) + codeSize(codes);
    if (call.code !== undefined) codes.add(call.target);
  }
  chunks.push(chunk);
  return chunks;
};

export interface Aggregate3Options {
  /**
   * The block to read at, pinned by its hash when known (EIP-1898), so that every eth_call of one
   * answer reads the same block whichever endpoint serves it; the head when absent.
   */
  readonly block?: BlockRef;
  readonly gas?: bigint;
}

const hex = (n: number | bigint) => `0x${n.toString(16)}`;

/** The state override object that places every call's `code` at its target, if any call carries code. */
const stateOverrideOf = (calls: ReadonlyArray<RawCall>): Record<string, { code: Hex }> | undefined => {
  let codes: Record<string, { code: Hex }> | undefined;
  for (const call of calls) {
    if (call.code === undefined) continue;
    codes ??= {};
    codes[call.target] = { code: call.code };
  }
  return codes;
};

/**
 * One eth_call of `call` at `options.block`, with the code of `overrides` (by default the call's
 * own `code`, placed at its target) put in place for it: the raw answer.
 */
export const ethCall = async (
  rpc: ChainRpc,
  call: RawCall,
  options: Aggregate3Options = {},
  overrides: Record<string, { code: Hex }> | undefined = stateOverrideOf([call]),
): Promise<Hex> => {
  const block = options.block;
  const transaction = {
    to: call.target,
    data: call.callData,
    ...(options.gas === undefined ? {} : { gas: hex(options.gas) }),
  };
  const at =
    block === undefined ? "latest" : block.hash !== undefined ? { blockHash: block.hash } : hex(block.number);
  const data = await rpc.request<string>(
    "eth_call",
    overrides === undefined ? [transaction, at] : [transaction, at, overrides],
    block === undefined ? { head: true } : { block: block.number, reads: "state" },
  );
  if (typeof data !== "string") throw new Error("eth_call returned no data");
  return data as Hex;
};

const callOnce = async (
  rpc: ChainRpc,
  calls: ReadonlyArray<RawCall>,
  options: Aggregate3Options,
): Promise<ReadonlyArray<RawResult>> => {
  const data = await ethCall(
    rpc,
    { target: MULTICALL3_ADDRESS, callData: encodeAggregate3(calls) },
    options,
    stateOverrideOf(calls),
  );
  if (data === "0x") throw new Error("aggregate3 returned no data");
  return decodeAggregate3(data);
};

/**
 * Calls each of `calls` through one `aggregate3` eth_call (failures allowed per
 * call), at `block` (or the head), and returns the raw results, so callers
 * can decode odd answers (bytes32 strings, short data) themselves. A batch over
 * `MAX_CALL_BYTES` goes out as several eth_calls at once, all at `block`
 * (without one, each reads the latest block it meets), `gas` capping each.
 */
export const aggregate3 = async (
  rpc: ChainRpc,
  calls: ReadonlyArray<RawCall>,
  options: Aggregate3Options = {},
): Promise<ReadonlyArray<RawResult>> => {
  if (calls.length === 0) return [];
  const chunks = splitCalls(calls);
  if (chunks.length === 1) return callOnce(rpc, calls, options);
  return (await Promise.all(chunks.map((chunk) => callOnce(rpc, chunk, options)))).flat();
};

/** Calldata of Multicall3's `getEthBalance(address)`, to read native balances in the same batch. */
export const getEthBalanceCall = (address: string): RawCall => ({
  target: MULTICALL3_ADDRESS,
  callData: `${GET_ETH_BALANCE}${address.slice(2).toLowerCase().padStart(64, "0")}` as Hex,
});
