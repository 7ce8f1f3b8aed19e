import type { ChainClient } from "../ChainClient.js";
import type { CompiledContracts } from "../compileContracts.js";
import type { DeployedContracts } from "../deployContracts.js";
import type { SeededVaults } from "./SeededVaults.js";
import { seedRestaking } from "./seedRestaking.js";
import { seedVaults } from "./seedVaults.js";

/** The ERC-4626 vaults of every chain and the restaking stand-ins of ethereum: one block each. */
export const seedVaultsAndRestaking = async (
  client: ChainClient,
  contracts: DeployedContracts,
  compiled: CompiledContracts,
): Promise<SeededVaults> => ({
  vaults: await seedVaults(client, contracts, compiled),
  restaking: await seedRestaking(client, contracts, compiled),
});
