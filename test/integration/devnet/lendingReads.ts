import { type Address, parseAbi } from "viem";
import type {
  DevnetManifest,
  ManifestChain,
  ManifestLendingMarket,
  ManifestLendingPosition,
} from "../../../src/devnet/DevnetManifest.js";

/**
 * Independent reads of the seeded cToken and Comet markets, straight from the protocols' public
 * interfaces (ABIs written out here, not taken from the seed code), for the devnet's lending tests.
 */

export const ctokenAbi = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function exchangeRateStored() view returns (uint256)",
  "function borrowBalanceStored(address) view returns (uint256)",
  "function borrowRatePerBlock() view returns (uint256)",
  "function underlying() view returns (address)",
  "function comptroller() view returns (address)",
  "function decimals() view returns (uint8)",
  "function getAccountLiquidity(address) view returns (uint256, uint256, uint256)",
  "function getAssetsIn(address) view returns (address[])",
  "function getAllMarkets() view returns (address[])",
  "function markets(address) view returns (bool, uint256, bool)",
  "function oracle() view returns (address)",
  "function getUnderlyingPrice(address) view returns (uint256)",
  "event MarketListed(address vToken)",
  "event Borrow(address borrower, uint256 borrowAmount, uint256 accountBorrows, uint256 totalBorrows)",
  "event LiquidateBorrow(address liquidator, address borrower, uint256 repayAmount, address vTokenCollateral, uint256 seizeTokens)",
  "event PricePosted(address asset, uint256 previousPriceMantissa, uint256 requestedPriceMantissa, uint256 newPriceMantissa)",
]);

export const cometAbi = parseAbi([
  "struct AssetInfo { uint8 offset; address asset; address priceFeed; uint64 scale; uint64 borrowCollateralFactor; uint64 liquidateCollateralFactor; uint64 liquidationFactor; uint128 supplyCap; }",
  "struct TotalsBasic { uint64 baseSupplyIndex; uint64 baseBorrowIndex; uint64 trackingSupplyIndex; uint64 trackingBorrowIndex; uint104 totalSupplyBase; uint104 totalBorrowBase; uint40 lastAccrualTime; uint8 pauseFlags; }",
  "function baseToken() view returns (address)",
  "function baseTokenPriceFeed() view returns (address)",
  "function baseScale() view returns (uint256)",
  "function numAssets() view returns (uint8)",
  "function getAssetInfo(uint8) view returns (AssetInfo)",
  "function getPrice(address) view returns (uint256)",
  "function balanceOf(address) view returns (uint256)",
  "function borrowBalanceOf(address) view returns (uint256)",
  "function collateralBalanceOf(address, address) view returns (uint128)",
  "function userBasic(address) view returns (int104, uint64, uint64, uint16, uint8)",
  "function totalsBasic() view returns (TotalsBasic)",
  "function getUtilization() view returns (uint256)",
  "function getBorrowRate(uint256) view returns (uint64)",
  "function isLiquidatable(address) view returns (bool)",
  "event Supply(address indexed from, address indexed dst, uint256 amount)",
  "event Withdraw(address indexed src, address indexed to, uint256 amount)",
  "event SupplyCollateral(address indexed from, address indexed dst, address indexed asset, uint256 amount)",
  "event AbsorbDebt(address indexed absorber, address indexed borrower, uint256 basePaidOut, uint256 usdValue)",
  "event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt)",
]);

/** The chains where the seed deployed lending markets. */
export const withLending = (manifest: DevnetManifest): ManifestChain[] =>
  manifest.chains.filter((c) => c.lending_markets.length > 0);

/** A chain's markets and positions of one kind. */
export const marketsOf = (chain: ManifestChain, kind: ManifestLendingMarket["kind"]) =>
  chain.lending_markets.filter((m) => m.kind === kind);
export const positionsOf = (chain: ManifestChain, kind: ManifestLendingPosition["kind"]) =>
  chain.lending_positions.filter((p) => p.kind === kind);

/** The market a position is in. */
export const marketOf = (chain: ManifestChain, position: ManifestLendingPosition): ManifestLendingMarket => {
  const market = chain.lending_markets.find((m) => m.address === position.market);
  if (market === undefined) throw new Error(`no market ${position.market} on ${chain.name}`);
  return market;
};

/** The cToken of a cToken position's asset. */
export const cTokenOf = (chain: ManifestChain, position: ManifestLendingPosition): Address => {
  const asset = marketOf(chain, position).assets.find((a) => a.asset === position.asset);
  if (asset?.supply_token == null) throw new Error(`no cToken for ${position.asset} on ${chain.name}`);
  return asset.supply_token as Address;
};

/** The symbol of an asset of the chain (manifest tokens). */
export const symbolOf = (chain: ManifestChain, asset: string): string =>
  Object.entries(chain.tokens).find(([, t]) => t.address === asset)?.[0] ?? asset;

/** `numerator / denominator` as a float, for ratios of 18-decimal fixed point figures. */
export const ratio = (numerator: bigint, denominator: bigint): number =>
  Number((numerator * 1_000_000n) / denominator) / 1_000_000;
