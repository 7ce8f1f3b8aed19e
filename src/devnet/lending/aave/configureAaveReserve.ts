import type { Address } from "viem";
import type { TxBatch } from "../txBatch.js";
import { aaveConfiguratorAbi } from "./aaveAbis.js";
import { AAVE_RESERVES, type AaveReserveSymbol } from "./aaveReserves.js";
import { aaveSend } from "./aaveTransactions.js";

/** Queues the collateral parameters of a listed reserve: loan-to-value, liquidation threshold and bonus. */
export const configureAsCollateral = (
  batch: TxBatch,
  deployer: Address,
  configurator: Address,
  symbol: AaveReserveSymbol,
  asset: Address,
): Promise<void> => {
  const spec = AAVE_RESERVES[symbol];
  return aaveSend(batch, {
    from: deployer,
    address: configurator,
    abi: aaveConfiguratorAbi,
    functionName: "configureReserveAsCollateral",
    args: [asset, spec.ltv, spec.liquidationThreshold, spec.liquidationBonus],
  });
};
