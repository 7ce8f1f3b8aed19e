import { type Address, encodeDeployData, type Hex, pad, zeroAddress } from "viem";
import type { AaveDeployment } from "../aave/AaveDeployment.js";
import { aaveDataProviderAbi, mockAggregatorAbi } from "../aave/aaveAbis.js";
import { aaveBytecode } from "../aave/aaveArtifacts.js";
import {
  AAVE_RESERVE_SYMBOLS,
  AAVE_RESERVES,
  type AaveReserveSymbol,
  priceInEthWei,
  rateCurveArgs,
} from "../aave/aaveReserves.js";
import { aaveSend, createdBy } from "../aave/aaveTransactions.js";
import type { TxBatch } from "../txBatch.js";
import { v2AddressesProviderAbi, v2OracleAbi, v2RateStrategyAbi } from "./aaveV2Abis.js";
import { listAaveV2Reserves } from "./listAaveV2Reserves.js";

/** The id under which Aave's own V2 markets register their AaveProtocolDataProvider in the addresses provider. */
const DATA_PROVIDER_ID: Hex = pad("0x01", { dir: "right", size: 32 });

/**
 * Queues an Aave V2 market from `@aave/protocol-v2` listing WETH, USDC, WBTC and UNI: addresses provider →
 * logic libraries (ValidationLogic linked to GenericLogic) → LendingPool linked to ReserveLogic and
 * ValidationLogic, configurator (the provider puts both behind proxies it creates: its first and second
 * contracts) → collateral manager (liquidations run in it), AaveOracle over mock aggregators (prices in ETH
 * wei), LendingRateOracle (the rate strategy reads it), data provider → rate strategy → reserves.
 */
export const deployAaveV2 = async (
  batch: TxBatch,
  deployer: Address,
  tokens: Readonly<Record<AaveReserveSymbol, Address>>,
): Promise<AaveDeployment> => {
  const provider = await batch.deploy(
    deployer,
    encodeDeployData({
      abi: v2AddressesProviderAbi,
      bytecode: aaveBytecode("V2AddressesProvider"),
      args: ["Aave devnet market"],
    }),
  );
  const onProvider = { from: deployer, address: provider, abi: v2AddressesProviderAbi } as const;
  await aaveSend(batch, { ...onProvider, functionName: "setPoolAdmin", args: [deployer] });
  await aaveSend(batch, { ...onProvider, functionName: "setEmergencyAdmin", args: [deployer] });

  const reserveLogic = await batch.deploy(deployer, aaveBytecode("V2ReserveLogic"));
  const genericLogic = await batch.deploy(deployer, aaveBytecode("V2GenericLogic"));
  const validationLogic = await batch.deploy(
    deployer,
    aaveBytecode("V2ValidationLogic", { GenericLogic: genericLogic }),
  );
  const poolImpl = await batch.deploy(
    deployer,
    aaveBytecode("V2LendingPool", { ReserveLogic: reserveLogic, ValidationLogic: validationLogic }),
  );
  await aaveSend(batch, { ...onProvider, functionName: "setLendingPoolImpl", args: [poolImpl] });
  const pool = createdBy(provider, 1);
  const configuratorImpl = await batch.deploy(deployer, aaveBytecode("V2Configurator"));
  await aaveSend(batch, {
    ...onProvider,
    functionName: "setLendingPoolConfiguratorImpl",
    args: [configuratorImpl],
  });
  const configurator = createdBy(provider, 2);
  const collateralManager = await batch.deploy(deployer, aaveBytecode("V2CollateralManager"));
  await aaveSend(batch, {
    ...onProvider,
    functionName: "setLendingPoolCollateralManager",
    args: [collateralManager],
  });

  // WETH needs no feed: V2's oracle prices it at exactly 1 ETH.
  const priced = AAVE_RESERVE_SYMBOLS.filter((symbol) => symbol !== "WETH");
  const aggregators: Partial<Record<AaveReserveSymbol, Address>> = {};
  for (const symbol of priced)
    aggregators[symbol] = await batch.deploy(
      deployer,
      encodeDeployData({
        abi: mockAggregatorAbi,
        bytecode: aaveBytecode("V2MockAggregator"),
        args: [priceInEthWei(AAVE_RESERVES[symbol].usdE8)],
      }),
    );
  const oracle = await batch.deploy(
    deployer,
    encodeDeployData({
      abi: v2OracleAbi,
      bytecode: aaveBytecode("V2AaveOracle"),
      args: [
        priced.map((symbol) => tokens[symbol]),
        priced.map((symbol) => aggregators[symbol] as Address),
        zeroAddress,
        tokens.WETH,
      ],
    }),
  );
  await aaveSend(batch, { ...onProvider, functionName: "setPriceOracle", args: [oracle] });
  const rateOracle = await batch.deploy(deployer, aaveBytecode("V2LendingRateOracle"));
  await aaveSend(batch, { ...onProvider, functionName: "setLendingRateOracle", args: [rateOracle] });
  const dataProvider = await batch.deploy(
    deployer,
    encodeDeployData({
      abi: aaveDataProviderAbi,
      bytecode: aaveBytecode("V2DataProvider"),
      args: [provider],
    }),
  );
  await aaveSend(batch, {
    ...onProvider,
    functionName: "setAddress",
    args: [DATA_PROVIDER_ID, dataProvider],
  });
  const strategy = await batch.deploy(
    deployer,
    encodeDeployData({
      abi: v2RateStrategyAbi,
      bytecode: aaveBytecode("V2RateStrategy"),
      args: [provider, ...rateCurveArgs()],
    }),
  );

  await listAaveV2Reserves(batch, deployer, { pool, configurator, strategy, tokens });
  return {
    version: "v2",
    addressesProvider: provider,
    pool,
    configurator,
    dataProvider,
    oracle,
    extra: { collateral_manager: collateralManager, lending_rate_oracle: rateOracle },
    reserves: Object.fromEntries(
      AAVE_RESERVE_SYMBOLS.map((symbol) => [
        symbol,
        { asset: tokens[symbol], aggregator: aggregators[symbol] ?? null },
      ]),
    ) as AaveDeployment["reserves"],
  };
};
