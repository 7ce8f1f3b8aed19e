import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { type Address, encodeDeployData, type Hex, maxUint256, parseAbi, parseUnits } from "viem";
import { type ChainClient, chainClient, deploy, execute } from "../../../src/devnet/ChainClient.js";
import type { ManifestChain, ManifestLendingMarket } from "../../../src/devnet/DevnetManifest.js";
import { roleAddress } from "../../../src/devnet/devAccounts.js";

/**
 * What the lending tests do to the devnet's markets, through the protocols' public interfaces (ABIs
 * written out here): accrue cToken interest, supply to Aave V3 on behalf of a fresh wallet, and drop an
 * Aave V3 oracle price to liquidate an account. Everything is sent from the devnet's deployer, which
 * holds tokens and is the Aave pool admin.
 */

const abi = parseAbi([
  "function accrueInterest() returns (uint256)",
  "function approve(address, uint256) returns (bool)",
  "function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode)",
  "function setAssetSources(address[] assets, address[] sources)",
  "function getSourceOfAsset(address) view returns (address)",
  "function latestAnswer() view returns (int256)",
  "function liquidationCall(address collateralAsset, address debtAsset, address user, uint256 debtToCover, bool receiveAToken)",
]);
const aggregatorAbi = parseAbi(["constructor(int256 initialAnswer)"]);

const deployer = roleAddress("deployer");
const clientOf = (chain: ManifestChain): ChainClient =>
  chainClient(chain.chain_id, chain.name, chain.rpc_url);
const aaveV3 = (chain: ManifestChain): ManifestLendingMarket => {
  const market = chain.lending_markets.find((m) => m.kind === "aave_v3");
  if (market === undefined) throw new Error(`no Aave V3 market on ${chain.name}`);
  return market;
};
const assetOf = (market: ManifestLendingMarket, symbol: string): Address =>
  market.assets.find((a) => a.symbol === symbol)!.asset as Address;

/** Brings a cToken's stored exchange rate and borrow index up to the current block. */
export const accrueInterest = async (chain: ManifestChain, cToken: Address): Promise<void> => {
  await execute(clientOf(chain), {
    from: deployer,
    address: cToken,
    abi,
    functionName: "accrueInterest",
    args: [],
  });
};

/** Supplies `whole` USDC to the chain's Aave V3 pool on behalf of `owner`, who receives the aTokens. */
export const aaveSupplyFor = async (chain: ManifestChain, owner: Address, whole: number): Promise<void> => {
  const client = clientOf(chain);
  const market = aaveV3(chain);
  const usdc = assetOf(market, "USDC");
  const pool = market.address as Address;
  await execute(client, {
    from: deployer,
    address: usdc,
    abi,
    functionName: "approve",
    args: [pool, maxUint256],
  });
  await execute(client, {
    from: deployer,
    address: pool,
    abi,
    functionName: "supply",
    args: [usdc, parseUnits(String(whole), chain.tokens.USDC!.decimals), owner, 0],
  });
};

const aggregatorBytecode = async (): Promise<Hex> => {
  const path = createRequire(import.meta.url).resolve(
    "@aave/core-v3/artifacts/contracts/mocks/oracle/CLAggregators/MockAggregator.sol/MockAggregator.json",
  );
  return (JSON.parse(await readFile(path, "utf8")) as { bytecode: Hex }).bytecode;
};

/**
 * Drops WETH's price in the chain's Aave V3 oracle by 25 % (a new source, as Aave's governance would set
 * it) and liquidates 1,000 USDC of `borrower`'s debt against its WETH collateral. Returns the block of
 * the liquidation.
 */
export const dropAavePriceAndLiquidate = async (
  chain: ManifestChain,
  borrower: Address | string,
): Promise<bigint> => {
  const client = clientOf(chain);
  const market = aaveV3(chain);
  const pool = market.address as Address;
  const oracle = market.contracts.oracle as Address;
  const weth = assetOf(market, "WETH");
  const usdc = assetOf(market, "USDC");
  const source = await client.publicClient.readContract({
    address: oracle,
    abi,
    functionName: "getSourceOfAsset",
    args: [weth],
  });
  const price = await client.publicClient.readContract({
    address: source,
    abi,
    functionName: "latestAnswer",
  });
  const lower = await deploy(
    client,
    deployer,
    encodeDeployData({ abi: aggregatorAbi, bytecode: await aggregatorBytecode(), args: [(price * 3n) / 4n] }),
  );
  await execute(client, {
    from: deployer,
    address: oracle,
    abi,
    functionName: "setAssetSources",
    args: [[weth], [lower]],
  });
  await execute(client, {
    from: deployer,
    address: usdc,
    abi,
    functionName: "approve",
    args: [pool, maxUint256],
  });
  const receipt = await execute(client, {
    from: deployer,
    address: pool,
    abi,
    functionName: "liquidationCall",
    args: [weth, usdc, borrower as Address, parseUnits("1000", chain.tokens.USDC!.decimals), false],
  });
  return receipt.blockNumber;
};
