import { type Address, encodeDeployData, getContractAddress, zeroAddress } from "viem";
import { type ChainClient, deploy } from "../ChainClient.js";
import { protocolBytecode } from "../protocolArtifacts.js";
import {
  algebraFactoryAbi,
  algebraPoolDeployerAbi,
  algebraPositionManagerAbi,
  algebraSwapRouterAbi,
} from "./algebraAbis.js";

/** An Algebra Integral deployment: core (factory, pool deployer) and periphery (position manager, router). */
export interface AlgebraDeployment {
  readonly factory: Address;
  readonly poolDeployer: Address;
  readonly positionManager: Address;
  readonly swapRouter: Address;
}

/**
 * Deploys Algebra Integral from its npm artifacts, following the protocol's own deploy script: the factory
 * and the pool deployer name each other in their constructors, so the factory is given the address the
 * pool deployer will get at the deployer's next nonce. No plugin factory (pools then run at the factory's
 * static default fee, 0.05 %, instead of the dynamic fee a plugin computes) and no community vault (the
 * community fee stays 0); neither is needed to create pools, mint, swap or collect. The position manager
 * gets no token descriptor (`tokenURI()` reverts) and WETH as its wrapped native token.
 */
export const deployAlgebra = async (
  client: ChainClient,
  from: Address,
  wrappedNative: Address,
): Promise<AlgebraDeployment> => {
  const nonce = await client.publicClient.getTransactionCount({ address: from });
  const expectedPoolDeployer = getContractAddress({ from, nonce: BigInt(nonce + 1) });
  const factory = await deploy(
    client,
    from,
    encodeDeployData({
      abi: algebraFactoryAbi,
      bytecode: protocolBytecode("AlgebraFactory"),
      args: [expectedPoolDeployer],
    }),
  );
  const poolDeployer = await deploy(
    client,
    from,
    encodeDeployData({
      abi: algebraPoolDeployerAbi,
      bytecode: protocolBytecode("AlgebraPoolDeployer"),
      args: [factory],
    }),
  );
  if (poolDeployer.toLowerCase() !== expectedPoolDeployer.toLowerCase())
    throw new Error(`Algebra pool deployer landed at ${poolDeployer}, not ${expectedPoolDeployer}`);
  const positionManager = await deploy(
    client,
    from,
    encodeDeployData({
      abi: algebraPositionManagerAbi,
      bytecode: protocolBytecode("AlgebraPositionManager"),
      args: [factory, wrappedNative, zeroAddress, poolDeployer],
    }),
  );
  const swapRouter = await deploy(
    client,
    from,
    encodeDeployData({
      abi: algebraSwapRouterAbi,
      bytecode: protocolBytecode("AlgebraSwapRouter"),
      args: [factory, wrappedNative, poolDeployer],
    }),
  );
  return { factory, poolDeployer, positionManager, swapRouter };
};
