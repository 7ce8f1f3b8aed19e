import { decodeFunctionData, encodeAbiParameters, type Hex, parseAbi } from "viem";
import { SWEEP_LENS_ADDRESS } from "../../src/discovery/lens/sweepLens.js";

const multicall = parseAbi([
  "function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[])",
]);

/** One inner call of an aggregate3, as a fake node sees it. */
export interface InnerCall {
  readonly target: string;
  readonly callData: Hex;
}

/** How many tokens a sweep-lens call (`balances(owner, tokens)`) asks about. */
export const lensTokenCount = (callData: Hex): number =>
  Number.parseInt(callData.slice(2 + 8 + 128, 2 + 8 + 192), 16);

/** Whether an inner call goes to the sweep lens (the wallet's token balances, each gas-capped). */
export const isLensCall = (call: InnerCall): boolean => call.target.toLowerCase() === SWEEP_LENS_ADDRESS;

/** The lens's answer for `call`: a zero balance for every token it asks about. */
export const zeroBalancesAnswer = (call: InnerCall): readonly [boolean, Hex] => [
  true,
  encodeAbiParameters(
    [{ type: "uint256[]" }],
    [Array.from({ length: lensTokenCount(call.callData) }, () => 0n)],
  ),
];

/**
 * An aggregate3 `data`'s answer: each inner call answered by `answer`, encoded as Multicall3 does.
 * Also answers the calls it was given, for a fake node to count.
 */
export const answerAggregate3 = (
  data: Hex,
  answer: (call: InnerCall) => readonly [boolean, Hex],
): { readonly calls: ReadonlyArray<InnerCall>; readonly result: Hex } => {
  const { args } = decodeFunctionData({ abi: multicall, data });
  const calls = args[0].map((call) => ({ target: call.target.toLowerCase(), callData: call.callData }));
  return {
    calls,
    result: encodeAbiParameters(
      [{ type: "tuple[]", components: [{ type: "bool" }, { type: "bytes" }] }],
      [calls.map(answer)],
    ),
  };
};
