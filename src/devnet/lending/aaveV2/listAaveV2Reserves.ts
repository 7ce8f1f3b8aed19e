import { type Address, encodeDeployData, zeroAddress } from "viem";
import { tokenDecimals } from "../../tokenDecimals.js";
import { aaveBytecode } from "../aave/aaveArtifacts.js";
import { AAVE_RESERVE_SYMBOLS, type AaveReserveSymbol } from "../aave/aaveReserves.js";
import { aaveSend } from "../aave/aaveTransactions.js";
import { configureAsCollateral } from "../aave/configureAaveReserve.js";
import type { TxBatch } from "../txBatch.js";
import { v2ATokenAbi, v2ConfiguratorAbi, v2DebtTokenAbi } from "./aaveV2Abis.js";

/** The parts of a V2 market that listing a reserve needs. */
export interface AaveV2Listing {
  readonly pool: Address;
  readonly configurator: Address;
  readonly strategy: Address;
  readonly tokens: Readonly<Record<AaveReserveSymbol, Address>>;
}

/**
 * Queues the listing of every devnet reserve on a V2 market. V2 (1.0.1) token implementations are bound to
 * one pool and one underlying in their constructors, so each reserve gets its own AToken, StableDebtToken
 * and VariableDebtToken implementation; `initReserve` puts a proxy in front of each (named after the
 * implementation) and emits `ReserveInitialized`. Then collateral parameters and variable-rate borrowing
 * (stable borrowing stays off). The treasury is the deployer.
 */
export const listAaveV2Reserves = async (
  batch: TxBatch,
  deployer: Address,
  listing: AaveV2Listing,
): Promise<void> => {
  const { pool, configurator, strategy, tokens } = listing;
  for (const symbol of AAVE_RESERVE_SYMBOLS) {
    const asset = tokens[symbol];
    const aTokenImpl = await batch.deploy(
      deployer,
      encodeDeployData({
        abi: v2ATokenAbi,
        bytecode: aaveBytecode("V2AToken"),
        args: [pool, asset, deployer, `Aave interest bearing ${symbol}`, `a${symbol}`, zeroAddress],
      }),
    );
    const debtImpl = (kind: "V2StableDebtToken" | "V2VariableDebtToken", rate: "stable" | "variable") =>
      batch.deploy(
        deployer,
        encodeDeployData({
          abi: v2DebtTokenAbi,
          bytecode: aaveBytecode(kind),
          args: [pool, asset, `Aave ${rate} debt bearing ${symbol}`, `${rate}Debt${symbol}`, zeroAddress],
        }),
      );
    const stableImpl = await debtImpl("V2StableDebtToken", "stable");
    const variableImpl = await debtImpl("V2VariableDebtToken", "variable");
    const onConfigurator = { from: deployer, address: configurator, abi: v2ConfiguratorAbi } as const;
    await aaveSend(batch, {
      ...onConfigurator,
      functionName: "initReserve",
      args: [aTokenImpl, stableImpl, variableImpl, tokenDecimals(symbol), strategy],
    });
    await configureAsCollateral(batch, deployer, configurator, symbol, asset);
    await aaveSend(batch, {
      ...onConfigurator,
      functionName: "enableBorrowingOnReserve",
      args: [asset, false],
    });
  }
};
