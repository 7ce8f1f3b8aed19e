import { createRequire } from "node:module";
import type { Address, Hex } from "viem";

const require = createRequire(import.meta.url);

const V2 = "@aave/protocol-v2/artifacts/contracts";
const V3 = "@aave/core-v3/artifacts/contracts";

/** Hardhat artifact paths of the Aave contracts the devnet deploys, as `@aave/protocol-v2` and `@aave/core-v3` publish them. */
const AAVE_ARTIFACT_PATHS = {
  V2AddressesProvider: `${V2}/protocol/configuration/LendingPoolAddressesProvider.sol/LendingPoolAddressesProvider.json`,
  V2ReserveLogic: `${V2}/protocol/libraries/logic/ReserveLogic.sol/ReserveLogic.json`,
  V2GenericLogic: `${V2}/protocol/libraries/logic/GenericLogic.sol/GenericLogic.json`,
  V2ValidationLogic: `${V2}/protocol/libraries/logic/ValidationLogic.sol/ValidationLogic.json`,
  V2LendingPool: `${V2}/protocol/lendingpool/LendingPool.sol/LendingPool.json`,
  V2Configurator: `${V2}/protocol/lendingpool/LendingPoolConfigurator.sol/LendingPoolConfigurator.json`,
  V2CollateralManager: `${V2}/protocol/lendingpool/LendingPoolCollateralManager.sol/LendingPoolCollateralManager.json`,
  V2RateStrategy: `${V2}/protocol/lendingpool/DefaultReserveInterestRateStrategy.sol/DefaultReserveInterestRateStrategy.json`,
  V2AaveOracle: `${V2}/misc/AaveOracle.sol/AaveOracle.json`,
  V2MockAggregator: `${V2}/mocks/oracle/CLAggregators/MockAggregator.sol/MockAggregator.json`,
  V2LendingRateOracle: `${V2}/mocks/oracle/LendingRateOracle.sol/LendingRateOracle.json`,
  V2DataProvider: `${V2}/misc/AaveProtocolDataProvider.sol/AaveProtocolDataProvider.json`,
  V2AToken: `${V2}/protocol/tokenization/AToken.sol/AToken.json`,
  V2StableDebtToken: `${V2}/protocol/tokenization/StableDebtToken.sol/StableDebtToken.json`,
  V2VariableDebtToken: `${V2}/protocol/tokenization/VariableDebtToken.sol/VariableDebtToken.json`,
  V3AddressesProvider: `${V3}/protocol/configuration/PoolAddressesProvider.sol/PoolAddressesProvider.json`,
  V3ACLManager: `${V3}/protocol/configuration/ACLManager.sol/ACLManager.json`,
  V3SupplyLogic: `${V3}/protocol/libraries/logic/SupplyLogic.sol/SupplyLogic.json`,
  V3BorrowLogic: `${V3}/protocol/libraries/logic/BorrowLogic.sol/BorrowLogic.json`,
  V3LiquidationLogic: `${V3}/protocol/libraries/logic/LiquidationLogic.sol/LiquidationLogic.json`,
  V3EModeLogic: `${V3}/protocol/libraries/logic/EModeLogic.sol/EModeLogic.json`,
  V3BridgeLogic: `${V3}/protocol/libraries/logic/BridgeLogic.sol/BridgeLogic.json`,
  V3PoolLogic: `${V3}/protocol/libraries/logic/PoolLogic.sol/PoolLogic.json`,
  V3FlashLoanLogic: `${V3}/protocol/libraries/logic/FlashLoanLogic.sol/FlashLoanLogic.json`,
  V3ConfiguratorLogic: `${V3}/protocol/libraries/logic/ConfiguratorLogic.sol/ConfiguratorLogic.json`,
  V3Pool: `${V3}/protocol/pool/Pool.sol/Pool.json`,
  V3Configurator: `${V3}/protocol/pool/PoolConfigurator.sol/PoolConfigurator.json`,
  V3RateStrategy: `${V3}/protocol/pool/DefaultReserveInterestRateStrategy.sol/DefaultReserveInterestRateStrategy.json`,
  V3AaveOracle: `${V3}/misc/AaveOracle.sol/AaveOracle.json`,
  V3MockAggregator: `${V3}/mocks/oracle/CLAggregators/MockAggregator.sol/MockAggregator.json`,
  V3DataProvider: `${V3}/misc/AaveProtocolDataProvider.sol/AaveProtocolDataProvider.json`,
  V3AToken: `${V3}/protocol/tokenization/AToken.sol/AToken.json`,
  V3StableDebtToken: `${V3}/protocol/tokenization/StableDebtToken.sol/StableDebtToken.json`,
  V3VariableDebtToken: `${V3}/protocol/tokenization/VariableDebtToken.sol/VariableDebtToken.json`,
} as const;

/** An Aave contract the devnet deploys from its npm artifact. */
export type AaveContract = keyof typeof AAVE_ARTIFACT_PATHS;

interface HardhatArtifact {
  readonly bytecode: string;
  /** Source file -> library name -> where the 20-byte placeholders of its address sit in `bytecode`. */
  readonly linkReferences: Record<string, Record<string, readonly { start: number; length: number }[]>>;
}

/**
 * Creation bytecode of an Aave contract with its external libraries linked: Hardhat leaves a placeholder
 * wherever the code calls a library, and lists the byte offsets in `linkReferences`. `libraries` maps a
 * library's name (`BorrowLogic`) to where it is deployed; every library the artifact names must be given.
 */
export const aaveBytecode = (name: AaveContract, libraries: Readonly<Record<string, Address>> = {}): Hex => {
  const artifact = require(AAVE_ARTIFACT_PATHS[name]) as HardhatArtifact;
  let code = artifact.bytecode.replace(/^0x/, "");
  for (const byLibrary of Object.values(artifact.linkReferences)) {
    for (const [library, offsets] of Object.entries(byLibrary)) {
      const address = libraries[library];
      if (address === undefined) throw new Error(`${name} needs library ${library} linked`);
      for (const { start, length } of offsets)
        code = code.slice(0, start * 2) + address.slice(2).toLowerCase() + code.slice((start + length) * 2);
    }
  }
  return `0x${code}`;
};
