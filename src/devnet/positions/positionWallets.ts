import { type Address, numberToHex, parseEther } from "viem";
import { erc20Abi } from "../abis.js";
import { type ChainClient, send } from "../ChainClient.js";
import type { DeployedContracts } from "../deployContracts.js";
import { type PositionRole, roleAddress } from "../devAccounts.js";
import { tokenDecimals } from "../tokenDecimals.js";
import { type TokenSymbol, units } from "../tokenSpecs.js";

/** Ether (set with anvil_setBalance) and whole tokens (sent by the deployer) each position role starts with. */
const POSITION_FUNDS: Readonly<
  Record<PositionRole, { ether: number; tokens: Partial<Record<TokenSymbol, number>> }>
> = {
  liquidity: { ether: 100, tokens: { WETH: 30, USDC: 100_000 } },
  nftSender: { ether: 100, tokens: { WETH: 10, USDC: 30_000 } },
  nftReceiver: { ether: 10, tokens: {} },
  swapper: { ether: 100, tokens: { WETH: 20, USDC: 60_000 } },
};

/**
 * Funds the position roles and lets the seed send from them. Their accounts are beyond the ten anvil funds
 * and unlocks, so the node impersonates them while seeding; the balances land in the state dump.
 */
export const fundPositionWallets = async (
  client: ChainClient,
  contracts: DeployedContracts,
  deployer: Address,
): Promise<void> => {
  for (const [role, funds] of Object.entries(POSITION_FUNDS) as [
    PositionRole,
    (typeof POSITION_FUNDS)[PositionRole],
  ][]) {
    const address = roleAddress(role);
    await client.rpc("anvil_impersonateAccount", [address]);
    await client.rpc("anvil_setBalance", [address, numberToHex(parseEther(String(funds.ether)))]);
    for (const [symbol, amount] of Object.entries(funds.tokens) as [TokenSymbol, number][]) {
      await send(client, {
        from: deployer,
        address: contracts.tokens[symbol],
        abi: erc20Abi,
        functionName: "transfer",
        args: [address, units(amount, tokenDecimals(symbol))],
      });
    }
  }
};
