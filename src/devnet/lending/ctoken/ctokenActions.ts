import {
  type Abi,
  type Address,
  type ContractFunctionName,
  parseEventLogs,
  type TransactionReceipt,
} from "viem";
import { type ChainClient, execute, type WriteRequest } from "../../ChainClient.js";
import { vTokenAbi } from "./ctokenAbis.js";

/**
 * Sends a write to a contract of the cToken design and fails when it failed. Those contracts report most
 * failures (no liquidity, no shortfall, market not listed, ...) with a `Failure` event and an error code
 * instead of a revert, so a mined transaction alone proves nothing.
 */
export const ctokenExecute = async <
  abi extends Abi,
  name extends ContractFunctionName<abi, "nonpayable" | "payable">,
>(
  client: ChainClient,
  request: WriteRequest<abi, name>,
): Promise<TransactionReceipt> => {
  const receipt = await execute(client, request);
  const failures = parseEventLogs({ abi: vTokenAbi, eventName: "Failure", logs: receipt.logs });
  const failure = failures[0];
  if (failure !== undefined) {
    const { code, info, detail } = failure.args;
    throw new Error(
      `${String(request.functionName)} on ${request.address} failed on chain ${client.chainId}: error ${code}, info ${info}, detail ${detail}`,
    );
  }
  return receipt;
};

/** Supplies `amount` of a market's underlying from `owner` (approved beforehand). */
export const mintCToken = (client: ChainClient, owner: Address, vToken: Address, amount: bigint) =>
  ctokenExecute(client, {
    from: owner,
    address: vToken,
    abi: vTokenAbi,
    functionName: "mint",
    args: [amount],
  });

/** Borrows `amount` of a market's underlying for `owner`, against the collateral of the markets it entered. */
export const borrowCToken = (client: ChainClient, owner: Address, vToken: Address, amount: bigint) =>
  ctokenExecute(client, {
    from: owner,
    address: vToken,
    abi: vTokenAbi,
    functionName: "borrow",
    args: [amount],
  });
