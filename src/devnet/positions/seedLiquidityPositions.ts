import { seedAlgebraPositions } from "../algebra/seedAlgebraPositions.js";
import type { ChainClient } from "../ChainClient.js";
import type { DevnetChainSpec } from "../chainSpecs.js";
import type { CompiledContracts } from "../compileContracts.js";
import type { DeployedContracts } from "../deployContracts.js";
import { POSITION_ROLES, roleAddress } from "../devAccounts.js";
import type { SeededPool } from "../SeededPool.js";
import { fundPositionWallets } from "./positionWallets.js";
import type { SeededLiquidity } from "./SeededLiquidityPosition.js";
import { seedV2Liquidity } from "./seedV2Liquidity.js";
import { seedV3Positions } from "./seedV3Positions.js";
import { seedV4Positions } from "./seedV4Positions.js";

/**
 * Opens every kind of liquidity position of docs/devnet.md on a chain whose spec asks for them: V2 LP
 * tokens of two factories, V3 positions in, below and above range and with `tokensOwed`, V4 positions in a
 * native-ETH pool and a hooked pool, Algebra positions where Algebra is deployed, one NFT transferred and
 * burned ones. Runs before the history, in the deployment phase, so its many blocks do not push the
 * history's blocks out of the states the dump keeps.
 */
export const seedLiquidityPositions = async (
  client: ChainClient,
  spec: DevnetChainSpec,
  contracts: DeployedContracts,
  compiled: CompiledContracts,
  pools: readonly SeededPool[],
): Promise<SeededLiquidity> => {
  if (!spec.liquidityPositions) return { positions: [], contracts: {} };
  const deployer = roleAddress("deployer");
  await fundPositionWallets(client, contracts, deployer);
  try {
    const v2 = await seedV2Liquidity(client, contracts, pools);
    const v3 = await seedV3Positions(client, contracts, deployer);
    const v4 = await seedV4Positions(client, contracts, compiled, deployer);
    const algebra = spec.algebra ? await seedAlgebraPositions(client, contracts, deployer) : undefined;
    return {
      positions: [...v2, ...v3, ...v4.positions, ...(algebra?.positions ?? [])],
      contracts: {
        uniswap_v4_swap_counter_hook: v4.hook,
        ...(algebra === undefined
          ? {}
          : {
              algebra_factory: algebra.deployment.factory,
              algebra_pool_deployer: algebra.deployment.poolDeployer,
              algebra_position_manager: algebra.deployment.positionManager,
              algebra_swap_router: algebra.deployment.swapRouter,
            }),
      },
    };
  } finally {
    for (const role of POSITION_ROLES)
      await client.rpc("anvil_stopImpersonatingAccount", [roleAddress(role)]);
  }
};
