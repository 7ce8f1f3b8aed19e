import { type Address, type Hex, type PublicClient, type StateOverride, toFunctionSelector } from "viem";
import { decodeAggregate3, encodeAggregate3 } from "./aggregate3Codec.js";

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
 * Calls each of `calls` through one `aggregate3` eth_call (failures allowed per
 * call), at `blockNumber` (or latest), and returns the raw results, so callers
 * can decode odd answers (bytes32 strings, short data) themselves.
 */
export const aggregate3 = async (
  client: PublicClient,
  calls: ReadonlyArray<RawCall>,
  options: { readonly blockNumber?: bigint; readonly gas?: bigint } = {},
): Promise<ReadonlyArray<RawResult>> => {
  if (calls.length === 0) return [];
  const result = await client.call({
    to: MULTICALL3_ADDRESS,
    data: encodeAggregate3(calls),
    ...stateOverrideOf(calls),
    ...(options.blockNumber === undefined ? {} : { blockNumber: options.blockNumber }),
    ...(options.gas === undefined ? {} : { gas: options.gas }),
  });
  if (result.data === undefined) throw new Error("aggregate3 returned no data");
  return decodeAggregate3(result.data);
};

/** The state override that places every call's `code` at its target, if any call carries code. */
const stateOverrideOf = (calls: ReadonlyArray<RawCall>): { stateOverride?: StateOverride } => {
  let codes: Map<string, Hex> | undefined;
  for (const call of calls) {
    if (call.code === undefined) continue;
    codes ??= new Map();
    codes.set(call.target, call.code);
  }
  if (codes === undefined) return {};
  return { stateOverride: [...codes].map(([address, code]) => ({ address: address as Address, code })) };
};

/** Calldata of Multicall3's `getEthBalance(address)`, to read native balances in the same batch. */
export const getEthBalanceCall = (address: string): RawCall => ({
  target: MULTICALL3_ADDRESS,
  callData: `${GET_ETH_BALANCE}${address.slice(2).toLowerCase().padStart(64, "0")}` as Hex,
});
