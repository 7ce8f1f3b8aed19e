import { type Address, numberToHex, parseEther } from "viem";
import { erc20Abi } from "../../abis.js";
import type { ChainClient } from "../../ChainClient.js";
import type { DeployedContracts } from "../../deployContracts.js";
import { roleAddress } from "../../devAccounts.js";
import { tokenDecimals } from "../../tokenDecimals.js";
import { units } from "../../tokenSpecs.js";
import type { TxBatch } from "../txBatch.js";
import type { AaveReserveSymbol } from "./aaveReserves.js";
import { aaveSend } from "./aaveTransactions.js";
import type { AaveWalletPlan } from "./aaveWalletPlans.js";

/** Ether each Aave wallet gets for gas (set with anvil_setBalance). */
const WALLET_ETHER = "100";

/**
 * Funds the wallets of the plans for `marketCount` markets and lets the seed send from them. Their accounts
 * are beyond the ten anvil funds and unlocks: the node impersonates them while seeding, gives them ether,
 * and the deployer sends them (into `batch`) what they will supply. Returns a function that stops the
 * impersonation.
 */
export const fundAaveWallets = async (
  client: ChainClient,
  batch: TxBatch,
  contracts: DeployedContracts,
  deployer: Address,
  plans: readonly AaveWalletPlan[],
  marketCount: number,
): Promise<() => Promise<void>> => {
  for (const plan of plans) {
    const address = roleAddress(plan.role);
    await client.rpc("anvil_impersonateAccount", [address]);
    await client.rpc("anvil_setBalance", [address, numberToHex(parseEther(WALLET_ETHER))]);
    for (const [symbol, amount] of Object.entries(plan.supply) as [AaveReserveSymbol, number][])
      await aaveSend(batch, {
        from: deployer,
        address: contracts.tokens[symbol],
        abi: erc20Abi,
        functionName: "transfer",
        args: [address, units(amount * marketCount, tokenDecimals(symbol))],
      });
  }
  return async () => {
    for (const plan of plans) await client.rpc("anvil_stopImpersonatingAccount", [roleAddress(plan.role)]);
  };
};
