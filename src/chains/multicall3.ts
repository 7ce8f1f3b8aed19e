import { decodeFunctionResult, encodeFunctionData, type Hex, type PublicClient, parseAbi } from "viem";

/** Multicall3's address on every chain where it is deployed (and on the devnet). */
export const MULTICALL3_ADDRESS = "0xca11bde05977b3631167028862be2a173976ca11";

const MULTICALL3_ABI = parseAbi([
  "struct Call3 { address target; bool allowFailure; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function aggregate3(Call3[] calls) payable returns (Result[] returnData)",
  "function getEthBalance(address addr) view returns (uint256 balance)",
]);

export interface RawCall {
  readonly target: string;
  readonly callData: Hex;
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
  const data = encodeFunctionData({
    abi: MULTICALL3_ABI,
    functionName: "aggregate3",
    args: [
      calls.map((call) => ({ target: call.target as Hex, allowFailure: true, callData: call.callData })),
    ],
  });
  const result = await client.call({
    to: MULTICALL3_ADDRESS,
    data,
    ...(options.blockNumber === undefined ? {} : { blockNumber: options.blockNumber }),
    ...(options.gas === undefined ? {} : { gas: options.gas }),
  });
  if (result.data === undefined) throw new Error("aggregate3 returned no data");
  return decodeFunctionResult({ abi: MULTICALL3_ABI, functionName: "aggregate3", data: result.data });
};

/** Calldata of Multicall3's `getEthBalance(address)`, to read native balances in the same batch. */
export const getEthBalanceCall = (address: string): RawCall => ({
  target: MULTICALL3_ADDRESS,
  callData: encodeFunctionData({
    abi: MULTICALL3_ABI,
    functionName: "getEthBalance",
    args: [address as Hex],
  }),
});
