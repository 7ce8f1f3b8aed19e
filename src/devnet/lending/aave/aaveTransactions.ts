import { type Abi, type Address, type ContractFunctionName, getContractAddress } from "viem";
import type { WriteRequest } from "../../ChainClient.js";
import type { TxBatch } from "../txBatch.js";

/**
 * Gas limit of an Aave call in the seed's batch (nothing estimates gas there: the state is pending).
 * Generous, since only gas used counts against the block: V2's `initReserve` (three proxies) takes about
 * 2M, borrows and liquidations under 1M.
 */
const AAVE_CALL_GAS = 5_000_000n;

/** Gas limit of V3's `initReserves` of all four reserves at once (twelve proxies, about 8M). */
export const INIT_RESERVES_GAS = 30_000_000n;

/** Queues an Aave contract write in the batch, with {@link AAVE_CALL_GAS} unless the request sets its own. */
export const aaveSend = <abi extends Abi, name extends ContractFunctionName<abi, "nonpayable" | "payable">>(
  batch: TxBatch,
  request: WriteRequest<abi, name>,
): Promise<void> => batch.send({ gas: AAVE_CALL_GAS, ...request });

/**
 * The address of the `nonce`-th contract that contract `creator` creates (contract nonces start at 1).
 * The addresses providers create the pool and configurator proxies this way: knowing their addresses
 * before the batch is mined lets later transactions of the batch call them.
 */
export const createdBy = (creator: Address, nonce: number): Address =>
  getContractAddress({ from: creator, nonce: BigInt(nonce) }).toLowerCase() as Address;
