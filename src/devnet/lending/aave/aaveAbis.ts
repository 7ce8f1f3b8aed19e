import { parseAbi } from "viem";

/**
 * The parts of the lending pool the seed uses that V2's LendingPool and V3's Pool share (V3 adds `supply`,
 * the new name of `deposit`). `getUserAccountData` answers in ETH wei on V2 and in USD with 8 decimals on V3;
 * the health factor is 1e18-scaled on both.
 */
export const aavePoolAbi = parseAbi([
  "function deposit(address asset, uint256 amount, address onBehalfOf, uint16 referralCode)",
  "function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode)",
  "function borrow(address asset, uint256 amount, uint256 interestRateMode, uint16 referralCode, address onBehalfOf)",
  "function liquidationCall(address collateralAsset, address debtAsset, address user, uint256 debtToCover, bool receiveAToken)",
  "function getUserAccountData(address user) view returns (uint256 totalCollateral, uint256 totalDebt, uint256 availableBorrows, uint256 currentLiquidationThreshold, uint256 ltv, uint256 healthFactor)",
  "event LiquidationCall(address indexed collateralAsset, address indexed debtAsset, address indexed user, uint256 debtToCover, uint256 liquidatedCollateralAmount, address liquidator, bool receiveAToken)",
]);

/** Both versions' AaveOracle: price feeds per asset, replaceable by the owner (V2) or a pool admin (V3). */
export const aaveOracleAbi = parseAbi([
  "function setAssetSources(address[] assets, address[] sources)",
  "function getAssetPrice(address asset) view returns (uint256)",
  "function getSourceOfAsset(address asset) view returns (address)",
]);

/** The mock Chainlink aggregator both packages ship: a fixed answer set at construction. */
export const mockAggregatorAbi = parseAbi([
  "constructor(int256 initialAnswer)",
  "function latestAnswer() view returns (int256)",
]);

/** Both versions' AaveProtocolDataProvider. */
export const aaveDataProviderAbi = parseAbi([
  "constructor(address addressesProvider)",
  "function getReserveTokensAddresses(address asset) view returns (address aTokenAddress, address stableDebtTokenAddress, address variableDebtTokenAddress)",
]);

/** Risk configuration both versions' configurators share. */
export const aaveConfiguratorAbi = parseAbi([
  "function configureReserveAsCollateral(address asset, uint256 ltv, uint256 liquidationThreshold, uint256 liquidationBonus)",
]);

/** Variable-rate borrowing: interest rate mode 2 on both versions (1 is the stable rate). */
export const VARIABLE_RATE_MODE = 2n;
