import { pagingTokenFactoryAbi } from "./abis.js";
import { type ChainClient, send } from "./ChainClient.js";
import type { DeployedContracts } from "./deployContracts.js";
import { roleAddress } from "./devAccounts.js";

/** Distinct tokens the paging wallet holds: more than a 1,000-item page, so paging has a second page. */
export const PAGING_TOKEN_COUNT = 1_200;

/** Clones per transaction; about 200k gas each, so a batch stays well under anvil's block gas limit. */
const BATCH = 100;
const BATCH_GAS = 25_000_000n;

/**
 * Creates {@link PAGING_TOKEN_COUNT} ERC-20 clones minted to the paging wallet, all in one block at
 * `timestamp`: one block keeps the history dump small, since anvil stores full state per kept block.
 */
export const seedPagingTokens = async (
  client: ChainClient,
  contracts: DeployedContracts,
  timestamp: number,
): Promise<void> => {
  await client.rpc("evm_setAutomine", [false]);
  try {
    for (let created = 0; created < PAGING_TOKEN_COUNT; created += BATCH) {
      await send(client, {
        from: roleAddress("deployer"),
        address: contracts.pagingTokenFactory,
        abi: pagingTokenFactoryAbi,
        functionName: "createBatch",
        args: [roleAddress("paging"), BigInt(BATCH), 10n ** 18n * 1000n],
        gas: BATCH_GAS,
      });
    }
    await client.rpc("evm_mine", [{ timestamp, blocks: 1 }]);
    const receipts = (await client.rpc("eth_getBlockReceipts", ["latest"])) as { status: string }[];
    if (receipts.some((r) => r.status !== "0x1"))
      throw new Error(`paging tokens failed on chain ${client.chainId}`);
  } finally {
    await client.rpc("evm_setAutomine", [true]);
  }
};
