import { type Address, numberToHex, parseEther } from "viem";
import { erc20Abi } from "../abis.js";
import type { ChainClient } from "../ChainClient.js";
import { roleAddress } from "../devAccounts.js";
import { tokenDecimals } from "../tokenDecimals.js";
import { units } from "../tokenSpecs.js";
import { type CompoundRole, plannedSupply, type WalletPlan } from "./compoundPlan.js";
import type { LendingSymbol } from "./openingPrices.js";
import type { TxBatch } from "./txBatch.js";

/** Ether each wallet gets on top of what it has, for gas (the shared `lendingAll` may hold some already). */
const GAS_ETHER = parseEther("10");

/**
 * Gives every wallet of `plans` ether for gas and (sent into `batch`), from `deployer`, the tokens the plans
 * supply, and lets the node send from them (their accounts are beyond the ten anvil unlocks). Returns a
 * function that stops the impersonation.
 */
export const fundCompoundWallets = async (
  client: ChainClient,
  batch: TxBatch,
  tokens: Readonly<Record<LendingSymbol, Address>>,
  deployer: Address,
  plans: readonly (readonly WalletPlan[])[],
): Promise<() => Promise<void>> => {
  const needs = plannedSupply(plans);
  const roles = [...needs.keys()] as CompoundRole[];
  for (const [role, need] of needs) {
    const address = roleAddress(role);
    await client.rpc("anvil_impersonateAccount", [address]);
    const balance = await client.publicClient.getBalance({ address });
    await client.rpc("anvil_setBalance", [address, numberToHex(balance + GAS_ETHER)]);
    for (const [symbol, whole] of Object.entries(need) as [LendingSymbol, number][]) {
      await batch.send({
        from: deployer,
        address: tokens[symbol],
        abi: erc20Abi,
        functionName: "transfer",
        args: [address, units(whole, tokenDecimals(symbol))],
      });
    }
  }
  return async () => {
    for (const role of roles) await client.rpc("anvil_stopImpersonatingAccount", [roleAddress(role)]);
  };
};
