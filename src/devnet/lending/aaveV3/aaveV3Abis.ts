import { parseAbi } from "viem";

/** `@aave/core-v3` PoolAddressesProvider: owns the pool and configurator proxies and names the market's parts. */
export const v3AddressesProviderAbi = parseAbi([
  "constructor(string marketId, address owner)",
  "function setACLAdmin(address newAclAdmin)",
  "function setACLManager(address newAclManager)",
  "function setPoolImpl(address newPoolImpl)",
  "function setPoolConfiguratorImpl(address newPoolConfiguratorImpl)",
  "function setPriceOracle(address newPriceOracle)",
  "function setPoolDataProvider(address newDataProvider)",
  "function getPool() view returns (address)",
  "function getPoolConfigurator() view returns (address)",
]);

/** V3 ACLManager: roles checked by the pool, the configurator and the oracle. */
export const v3AclManagerAbi = parseAbi([
  "constructor(address provider)",
  "function addPoolAdmin(address admin)",
]);

/** A contract whose only constructor argument is a pool or an addresses provider (Pool, token implementations). */
export const v3SingleAddressConstructorAbi = parseAbi(["constructor(address)"]);

/** V3 PoolConfigurator: every reserve in one `initReserves` call, from shared token implementations. */
export const v3ConfiguratorAbi = parseAbi([
  "struct InitReserveInput { address aTokenImpl; address stableDebtTokenImpl; address variableDebtTokenImpl; uint8 underlyingAssetDecimals; address interestRateStrategyAddress; address underlyingAsset; address treasury; address incentivesController; string aTokenName; string aTokenSymbol; string variableDebtTokenName; string variableDebtTokenSymbol; string stableDebtTokenName; string stableDebtTokenSymbol; bytes params; }",
  "function initReserves(InitReserveInput[] input)",
  "function setReserveBorrowing(address asset, bool enabled)",
]);

/** V3 DefaultReserveInterestRateStrategy (rates as rays). */
export const v3RateStrategyAbi = parseAbi([
  "constructor(address provider, uint256 optimalUsageRatio, uint256 baseVariableBorrowRate, uint256 variableRateSlope1, uint256 variableRateSlope2, uint256 stableRateSlope1, uint256 stableRateSlope2, uint256 baseStableRateOffset, uint256 stableRateExcessOffset, uint256 optimalStableToTotalDebtRatio)",
]);

/** V3 AaveOracle: prices in the base currency (USD, 8 decimals, as Aave's V3 markets use). */
export const v3OracleAbi = parseAbi([
  "constructor(address provider, address[] assets, address[] sources, address fallbackOracle, address baseCurrency, uint256 baseCurrencyUnit)",
]);
