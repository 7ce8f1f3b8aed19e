import { type Address, parseAbi } from "viem";
import type { ChainClient } from "../../ChainClient.js";
import type { AaveDeployment, AaveReserveTokens } from "./AaveDeployment.js";
import { aaveDataProviderAbi } from "./aaveAbis.js";
import { AAVE_RESERVE_SYMBOLS, type AaveReserveSymbol } from "./aaveReserves.js";

/** Where each version's addresses provider tells its pool and configurator proxies. */
const providerAbi = parseAbi([
  "function getLendingPool() view returns (address)",
  "function getLendingPoolConfigurator() view returns (address)",
  "function getPool() view returns (address)",
  "function getPoolConfigurator() view returns (address)",
]);
const PROXY_GETTERS = {
  v2: { pool: "getLendingPool", configurator: "getLendingPoolConfigurator" },
  v3: { pool: "getPool", configurator: "getPoolConfigurator" },
} as const;

const lower = (address: Address): Address => address.toLowerCase() as Address;

/**
 * Checks a mined Aave market and reads every reserve's aToken and variable debt token from its data
 * provider. The seed predicted the pool and configurator proxies' addresses; a wrong prediction would not
 * revert (a call to an address without code succeeds), so the provider's own answer is compared, and a
 * reserve the configurator did not list fails.
 */
export const readMinedAaveMarket = async (
  client: ChainClient,
  market: AaveDeployment,
): Promise<Record<AaveReserveSymbol, AaveReserveTokens>> => {
  const getters = PROXY_GETTERS[market.version];
  for (const role of ["pool", "configurator"] as const) {
    const actual = await client.publicClient.readContract({
      address: market.addressesProvider,
      abi: providerAbi,
      functionName: getters[role],
    });
    if (lower(actual) !== lower(market[role]))
      throw new Error(`Aave ${market.version} ${role} is at ${actual}, not at the predicted ${market[role]}`);
  }
  const tokens = {} as Record<AaveReserveSymbol, AaveReserveTokens>;
  for (const symbol of AAVE_RESERVE_SYMBOLS) {
    const [aToken, , variableDebtToken] = await client.publicClient.readContract({
      address: market.dataProvider,
      abi: aaveDataProviderAbi,
      functionName: "getReserveTokensAddresses",
      args: [market.reserves[symbol].asset],
    });
    if (/^0x0{40}$/.test(aToken))
      throw new Error(`Aave ${market.version} pool ${market.pool} did not list ${symbol}`);
    tokens[symbol] = { aToken: lower(aToken), variableDebtToken: lower(variableDebtToken) };
  }
  return tokens;
};
