import { decodeAbiParameters, type Hex, toFunctionSelector } from "viem";
import { getEthBalanceCall, type RawCall, type RawResult } from "./multicall3.js";

/** The zero address: V4 pools' native currency, and how balance reads name the native asset. */
export const NATIVE_CURRENCY = "0x0000000000000000000000000000000000000000";

const BALANCE_OF = toFunctionSelector("balanceOf(address)");

/** `token.balanceOf(owner)`, or Multicall3's `getEthBalance(owner)` for the native currency. */
export const balanceOfCall = (token: string, owner: string): RawCall =>
  token === NATIVE_CURRENCY
    ? getEthBalanceCall(owner)
    : { target: token, callData: `${BALANCE_OF}${owner.slice(2).toLowerCase().padStart(64, "0")}` as Hex };

/** Raw `uint256` of a `balanceOf`/`getEthBalance` result; undefined when the call failed. */
export const decodeBalance = (result: RawResult | undefined): bigint | undefined => {
  if (result === undefined || !result.success || result.returnData.length < 66) return undefined;
  const [value] = decodeAbiParameters([{ type: "uint256" }], result.returnData.slice(0, 66) as Hex);
  return value;
};
