import { parseAbi } from "viem";

/** `@aave/protocol-v2` LendingPoolAddressesProvider: owns the proxies of the pool and the configurator. */
export const v2AddressesProviderAbi = parseAbi([
  "constructor(string marketId)",
  "function setPoolAdmin(address admin)",
  "function setEmergencyAdmin(address admin)",
  "function setLendingPoolImpl(address pool)",
  "function setLendingPoolConfiguratorImpl(address configurator)",
  "function setLendingPoolCollateralManager(address manager)",
  "function setPriceOracle(address priceOracle)",
  "function setLendingRateOracle(address lendingRateOracle)",
  "function setAddress(bytes32 id, address newAddress)",
  "function getLendingPool() view returns (address)",
  "function getLendingPoolConfigurator() view returns (address)",
]);

/** V2 LendingPoolConfigurator: one reserve per `initReserve`, from token implementations bound to it. */
export const v2ConfiguratorAbi = parseAbi([
  "function initReserve(address aTokenImpl, address stableDebtTokenImpl, address variableDebtTokenImpl, uint8 underlyingAssetDecimals, address interestRateStrategyAddress)",
  "function enableBorrowingOnReserve(address asset, bool stableBorrowRateEnabled)",
]);

/** V2 DefaultReserveInterestRateStrategy (rates as rays). */
export const v2RateStrategyAbi = parseAbi([
  "constructor(address provider, uint256 optimalUtilizationRate, uint256 baseVariableBorrowRate, uint256 variableRateSlope1, uint256 variableRateSlope2, uint256 stableRateSlope1, uint256 stableRateSlope2)",
]);

/** V2 AaveOracle: prices in ETH wei, WETH fixed at 1 ETH. */
export const v2OracleAbi = parseAbi([
  "constructor(address[] assets, address[] sources, address fallbackOracle, address weth)",
]);

/** V2 AToken implementation: bound to one pool and one underlying at construction. */
export const v2ATokenAbi = parseAbi([
  "constructor(address pool, address underlyingAssetAddress, address reserveTreasuryAddress, string tokenName, string tokenSymbol, address incentivesController)",
]);

/** V2 StableDebtToken and VariableDebtToken implementations (same constructor). */
export const v2DebtTokenAbi = parseAbi([
  "constructor(address pool, address underlyingAsset, string name, string symbol, address incentivesController)",
]);
