import { type Address, encodeDeployData } from "viem";
import { aaveBytecode } from "../aave/aaveArtifacts.js";
import { aaveSend, createdBy } from "../aave/aaveTransactions.js";
import type { TxBatch } from "../txBatch.js";
import { v3AddressesProviderAbi, v3SingleAddressConstructorAbi } from "./aaveV3Abis.js";

/** The pool's external logic libraries without links of their own (FlashLoanLogic calls BorrowLogic). */
const POOL_LIBRARIES = [
  "SupplyLogic",
  "BorrowLogic",
  "LiquidationLogic",
  "EModeLogic",
  "BridgeLogic",
  "PoolLogic",
] as const;

/**
 * Queues the V3 pool and configurator: the seven logic libraries, a `Pool` implementation linked to them,
 * a `PoolConfigurator` implementation linked to ConfiguratorLogic. The addresses provider puts each behind
 * a proxy it creates (its first and second contracts) and initializes it; returns the proxies, which are
 * the market's addresses.
 */
export const deployAaveV3Pool = async (
  batch: TxBatch,
  deployer: Address,
  provider: Address,
): Promise<{ pool: Address; configurator: Address }> => {
  const libraries: Record<string, Address> = {};
  for (const name of POOL_LIBRARIES)
    libraries[name] = await batch.deploy(deployer, aaveBytecode(`V3${name}`));
  libraries.FlashLoanLogic = await batch.deploy(
    deployer,
    aaveBytecode("V3FlashLoanLogic", { BorrowLogic: libraries.BorrowLogic as Address }),
  );
  const poolImpl = await batch.deploy(
    deployer,
    encodeDeployData({
      abi: v3SingleAddressConstructorAbi,
      bytecode: aaveBytecode("V3Pool", libraries),
      args: [provider],
    }),
  );
  const onProvider = { from: deployer, address: provider, abi: v3AddressesProviderAbi } as const;
  await aaveSend(batch, { ...onProvider, functionName: "setPoolImpl", args: [poolImpl] });
  const configuratorLogic = await batch.deploy(deployer, aaveBytecode("V3ConfiguratorLogic"));
  const configuratorImpl = await batch.deploy(
    deployer,
    aaveBytecode("V3Configurator", { ConfiguratorLogic: configuratorLogic }),
  );
  await aaveSend(batch, { ...onProvider, functionName: "setPoolConfiguratorImpl", args: [configuratorImpl] });
  return { pool: createdBy(provider, 1), configurator: createdBy(provider, 2) };
};
