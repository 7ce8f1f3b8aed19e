import { parseAbi } from "viem";

/**
 * The Comet interface (Compound III) as the devnet's stand-in (`src/devnet/contracts/Comet.sol`)
 * implements it: the same function signatures, structs and events as the real protocol, so whatever
 * reads a real Comet reads this one.
 */
export const cometAbi = parseAbi([
  "struct AssetConfig { address asset; address priceFeed; uint8 decimals; uint64 borrowCollateralFactor; uint64 liquidateCollateralFactor; uint64 liquidationFactor; uint128 supplyCap; }",
  "struct AssetInfo { uint8 offset; address asset; address priceFeed; uint64 scale; uint64 borrowCollateralFactor; uint64 liquidateCollateralFactor; uint64 liquidationFactor; uint128 supplyCap; }",
  "struct TotalsBasic { uint64 baseSupplyIndex; uint64 baseBorrowIndex; uint64 trackingSupplyIndex; uint64 trackingBorrowIndex; uint104 totalSupplyBase; uint104 totalBorrowBase; uint40 lastAccrualTime; uint8 pauseFlags; }",
  "constructor(string name_, string symbol_, address baseToken_, address baseTokenPriceFeed_, uint104 baseBorrowMin_, uint64[8] rates, AssetConfig[] configs)",
  "function supply(address asset, uint256 amount)",
  "function supplyTo(address dst, address asset, uint256 amount)",
  "function withdraw(address asset, uint256 amount)",
  "function withdrawTo(address to, address asset, uint256 amount)",
  "function absorb(address absorber, address[] accounts)",
  "function accrueAccount(address account)",
  "function baseToken() view returns (address)",
  "function baseTokenPriceFeed() view returns (address)",
  "function numAssets() view returns (uint8)",
  "function getAssetInfo(uint8 i) view returns (AssetInfo)",
  "function getPrice(address priceFeed) view returns (uint256)",
  "function balanceOf(address account) view returns (uint256)",
  "function borrowBalanceOf(address account) view returns (uint256)",
  "function collateralBalanceOf(address account, address asset) view returns (uint128)",
  "function userBasic(address account) view returns (int104 principal, uint64 baseTrackingIndex, uint64 baseTrackingAccrued, uint16 assetsIn, uint8 _reserved)",
  "function totalsBasic() view returns (TotalsBasic)",
  "function getUtilization() view returns (uint256)",
  "function getSupplyRate(uint256 utilization) view returns (uint64)",
  "function getBorrowRate(uint256 utilization) view returns (uint64)",
  "function isBorrowCollateralized(address account) view returns (bool)",
  "function isLiquidatable(address account) view returns (bool)",
  "event Supply(address indexed from, address indexed dst, uint256 amount)",
  "event Transfer(address indexed from, address indexed to, uint256 amount)",
  "event Withdraw(address indexed src, address indexed to, uint256 amount)",
  "event SupplyCollateral(address indexed from, address indexed dst, address indexed asset, uint256 amount)",
  "event WithdrawCollateral(address indexed src, address indexed to, address indexed asset, uint256 amount)",
  "event AbsorbDebt(address indexed absorber, address indexed borrower, uint256 basePaidOut, uint256 usdValue)",
  "event AbsorbCollateral(address indexed absorber, address indexed borrower, address indexed asset, uint256 collateralAbsorbed, uint256 usdValue)",
]);

/** The devnet's Chainlink-style feed (`src/devnet/contracts/DevPriceFeed.sol`). */
export const devPriceFeedAbi = parseAbi([
  "constructor(string description_, int256 answer_)",
  "function setAnswer(int256 answer_)",
  "function latestRoundData() view returns (uint80, int256, uint256, uint256, uint80)",
]);
