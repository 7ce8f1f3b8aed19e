import {
  type Abi,
  type Address,
  type ContractFunctionName,
  getContractAddress,
  type Hex,
  toEventSelector,
} from "viem";
import type { ChainClient, WriteRequest } from "../ChainClient.js";

/** Gas limits of batched transactions: nothing estimates them, since their state is still pending. */
const DEPLOY_GAS = 12_000_000n;
const CALL_GAS = 1_500_000n;

/** The cToken design's failure report: most of its functions return an error code instead of reverting. */
const FAILURE_TOPIC = toEventSelector("Failure(uint256,uint256,uint256)");

interface RawReceipt {
  readonly transactionHash: Hex;
  readonly status: Hex;
  readonly to: Address | null;
  readonly logs: readonly { readonly topics: readonly Hex[] }[];
}

/**
 * Transactions that go into one block: sent with automine off, fixed gas and explicit nonces (so a
 * deployment's address is known before it is mined and later transactions can call it), then mined
 * together by {@link TxBatch.mine}. The node orders transactions of equal fee as they arrive, so the
 * block runs them in the order sent. One block instead of one per transaction keeps seeding cheap.
 */
export interface TxBatch {
  /** Sends creation code; returns the address the contract will have. */
  readonly deploy: (from: Address, data: Hex) => Promise<Address>;
  /** Sends a contract write. */
  readonly send: <abi extends Abi, name extends ContractFunctionName<abi, "nonpayable" | "payable">>(
    request: WriteRequest<abi, name>,
  ) => Promise<void>;
  /**
   * Mines everything sent so far in one block (at `timestamp` when given) and turns automine back on.
   * Fails when any transaction reverted or reported a cToken `Failure`.
   */
  readonly mine: (timestamp?: number) => Promise<void>;
}

/** Opens a batch on `client`: automine is off until `mine`. */
export const openTxBatch = async (client: ChainClient): Promise<TxBatch> => {
  const nonces = new Map<Address, number>();
  let sent = 0;
  const nextNonce = async (from: Address): Promise<number> => {
    const nonce =
      nonces.get(from) ??
      (await client.publicClient.getTransactionCount({ address: from, blockTag: "pending" }));
    nonces.set(from, nonce + 1);
    sent++;
    return nonce;
  };
  await client.rpc("evm_setAutomine", [false]);
  return {
    deploy: async (from, data) => {
      const nonce = await nextNonce(from);
      await client.walletClient.sendTransaction({ account: from, chain: null, data, gas: DEPLOY_GAS, nonce });
      // Lower case, as the node reports addresses everywhere else in the manifest.
      return getContractAddress({ from, nonce: BigInt(nonce) }).toLowerCase() as Address;
    },
    send: async (request) => {
      const nonce = await nextNonce(request.from);
      await client.walletClient.writeContract({
        account: request.from,
        address: request.address,
        abi: request.abi as Abi,
        functionName: request.functionName as string,
        args: request.args as readonly unknown[],
        ...(request.value === undefined ? {} : { value: request.value }),
        chain: null,
        gas: request.gas ?? CALL_GAS,
        nonce,
      });
    },
    mine: async (timestamp) => {
      try {
        await client.rpc("evm_mine", timestamp === undefined ? [] : [{ timestamp, blocks: 1 }]);
      } finally {
        await client.rpc("evm_setAutomine", [true]);
      }
      const receipts = (await client.rpc("eth_getBlockReceipts", ["latest"])) as RawReceipt[];
      const failed = receipts.find(
        (r) => r.status !== "0x1" || r.logs.some((log) => log.topics[0] === FAILURE_TOPIC),
      );
      if (receipts.length !== sent || failed !== undefined)
        throw new Error(
          `batch on chain ${client.chainId}: ${receipts.length} of ${sent} transactions mined, ${failed === undefined ? "none" : `${failed.transactionHash} (status ${failed.status}, to ${failed.to})`} failed`,
        );
    },
  };
};
