import { type Address, encodeDeployData, zeroAddress } from "viem";
import type { AaveDeployment } from "../aave/AaveDeployment.js";
import { aaveDataProviderAbi, mockAggregatorAbi } from "../aave/aaveAbis.js";
import { aaveBytecode } from "../aave/aaveArtifacts.js";
import { AAVE_RESERVE_SYMBOLS, AAVE_RESERVES, type AaveReserveSymbol } from "../aave/aaveReserves.js";
import { aaveSend } from "../aave/aaveTransactions.js";
import type { TxBatch } from "../txBatch.js";
import { v3AclManagerAbi, v3AddressesProviderAbi, v3OracleAbi } from "./aaveV3Abis.js";
import { deployAaveV3Pool } from "./deployAaveV3Pool.js";
import { listAaveV3Reserves } from "./listAaveV3Reserves.js";

/** Aave V3 markets price in USD with 8 decimals: base currency address 0, unit 1e8. */
const USD_BASE_UNIT = 10n ** 8n;

/**
 * Queues an Aave V3 market from `@aave/core-v3` and lists WETH, USDC, WBTC and UNI: addresses provider
 * (the deployer is its owner and ACL admin) → ACLManager with the deployer as pool admin → the pool and its
 * configurator behind the provider's proxies → AaveOracle over one mock aggregator per asset (USD, 8
 * decimals) → AaveProtocolDataProvider → reserves (see {@link listAaveV3Reserves}).
 */
export const deployAaveV3 = async (
  batch: TxBatch,
  deployer: Address,
  tokens: Readonly<Record<AaveReserveSymbol, Address>>,
  names: { readonly marketId: string; readonly tokenPrefix: string; readonly networkName: string },
): Promise<AaveDeployment> => {
  const provider = await batch.deploy(
    deployer,
    encodeDeployData({
      abi: v3AddressesProviderAbi,
      bytecode: aaveBytecode("V3AddressesProvider"),
      args: [names.marketId, deployer],
    }),
  );
  const onProvider = { address: provider, abi: v3AddressesProviderAbi } as const;
  await aaveSend(batch, { from: deployer, ...onProvider, functionName: "setACLAdmin", args: [deployer] });
  const aclManager = await batch.deploy(
    deployer,
    encodeDeployData({ abi: v3AclManagerAbi, bytecode: aaveBytecode("V3ACLManager"), args: [provider] }),
  );
  await aaveSend(batch, {
    from: deployer,
    ...onProvider,
    functionName: "setACLManager",
    args: [aclManager],
  });
  await aaveSend(batch, {
    from: deployer,
    address: aclManager,
    abi: v3AclManagerAbi,
    functionName: "addPoolAdmin",
    args: [deployer],
  });
  const { pool, configurator } = await deployAaveV3Pool(batch, deployer, provider);

  const aggregators = {} as Record<AaveReserveSymbol, Address>;
  for (const symbol of AAVE_RESERVE_SYMBOLS)
    aggregators[symbol] = await batch.deploy(
      deployer,
      encodeDeployData({
        abi: mockAggregatorAbi,
        bytecode: aaveBytecode("V3MockAggregator"),
        args: [AAVE_RESERVES[symbol].usdE8],
      }),
    );
  const oracle = await batch.deploy(
    deployer,
    encodeDeployData({
      abi: v3OracleAbi,
      bytecode: aaveBytecode("V3AaveOracle"),
      args: [
        provider,
        AAVE_RESERVE_SYMBOLS.map((symbol) => tokens[symbol]),
        AAVE_RESERVE_SYMBOLS.map((symbol) => aggregators[symbol]),
        zeroAddress,
        zeroAddress,
        USD_BASE_UNIT,
      ],
    }),
  );
  await aaveSend(batch, { from: deployer, ...onProvider, functionName: "setPriceOracle", args: [oracle] });
  const dataProvider = await batch.deploy(
    deployer,
    encodeDeployData({
      abi: aaveDataProviderAbi,
      bytecode: aaveBytecode("V3DataProvider"),
      args: [provider],
    }),
  );
  await aaveSend(batch, {
    from: deployer,
    ...onProvider,
    functionName: "setPoolDataProvider",
    args: [dataProvider],
  });

  await listAaveV3Reserves(batch, deployer, {
    provider,
    pool,
    configurator,
    tokens,
    tokenPrefix: names.tokenPrefix,
    networkName: names.networkName,
  });
  return {
    version: "v3",
    addressesProvider: provider,
    pool,
    configurator,
    dataProvider,
    oracle,
    extra: { acl_manager: aclManager },
    reserves: Object.fromEntries(
      AAVE_RESERVE_SYMBOLS.map((symbol) => [
        symbol,
        { asset: tokens[symbol], aggregator: aggregators[symbol] },
      ]),
    ) as AaveDeployment["reserves"],
  };
};
