import { parseAbi } from "viem";

/**
 * The functions and events of the cToken design the devnet calls and reads, as
 * `@venusprotocol/venus-protocol` 0.7.0 declares them (Compound V2's interface with Venus names:
 * vTokens, `VBep20Immutable`). Most writes return an error code instead of reverting; a failure shows as
 * a `Failure(error, info, detail)` event, which `ctokenActions` checks.
 */

export const comptrollerAbi = parseAbi([
  "function _setPendingImplementation(address newPendingImplementation) returns (uint256)",
  "function _become(address unitroller)",
  "function _setAccessControl(address newAccessControlAddress) returns (uint256)",
  "function _setComptrollerLens(address comptrollerLens) returns (uint256)",
  "function _setPriceOracle(address newOracle) returns (uint256)",
  "function _setCloseFactor(uint256 newCloseFactorMantissa) returns (uint256)",
  "function _setLiquidationIncentive(uint256 newLiquidationIncentiveMantissa) returns (uint256)",
  "function _supportMarket(address vToken) returns (uint256)",
  "function _setCollateralFactor(address vToken, uint256 newCollateralFactorMantissa) returns (uint256)",
  "function _setMarketSupplyCaps(address[] vTokens, uint256[] newSupplyCaps)",
  "function enterMarkets(address[] vTokens) returns (uint256[])",
  "function getAccountLiquidity(address account) view returns (uint256, uint256, uint256)",
  "function getAssetsIn(address account) view returns (address[])",
  "function getAllMarkets() view returns (address[])",
  "function markets(address vToken) view returns (bool isListed, uint256 collateralFactorMantissa, bool isVenus)",
  "function oracle() view returns (address)",
  "event MarketListed(address vToken)",
  "event Failure(uint256 code, uint256 info, uint256 detail)",
]);

export const vTokenAbi = parseAbi([
  "constructor(address underlying_, address comptroller_, address interestRateModel_, uint256 initialExchangeRateMantissa_, string name_, string symbol_, uint8 decimals_, address admin_)",
  "function mint(uint256 mintAmount) returns (uint256)",
  "function borrow(uint256 borrowAmount) returns (uint256)",
  "function liquidateBorrow(address borrower, uint256 repayAmount, address vTokenCollateral) returns (uint256)",
  "function accrueInterest() returns (uint256)",
  "function _setReserveFactor(uint256 newReserveFactorMantissa) returns (uint256)",
  "function underlying() view returns (address)",
  "function symbol() view returns (string)",
  "function balanceOf(address owner) view returns (uint256)",
  "function exchangeRateStored() view returns (uint256)",
  "function borrowBalanceStored(address account) view returns (uint256)",
  "function borrowBalanceCurrent(address account) returns (uint256)",
  "function borrowRatePerBlock() view returns (uint256)",
  "function supplyRatePerBlock() view returns (uint256)",
  "function totalBorrows() view returns (uint256)",
  "event Mint(address minter, uint256 mintAmount, uint256 mintTokens)",
  "event Borrow(address borrower, uint256 borrowAmount, uint256 accountBorrows, uint256 totalBorrows)",
  "event LiquidateBorrow(address liquidator, address borrower, uint256 repayAmount, address vTokenCollateral, uint256 seizeTokens)",
  "event Failure(uint256 code, uint256 info, uint256 detail)",
]);

export const jumpRateModelAbi = parseAbi([
  "constructor(uint256 baseRatePerYear, uint256 multiplierPerYear, uint256 jumpMultiplierPerYear, uint256 kink_)",
]);

export const simplePriceOracleAbi = parseAbi([
  "function setDirectPrice(address asset, uint256 price)",
  "function getUnderlyingPrice(address vToken) view returns (uint256)",
]);
