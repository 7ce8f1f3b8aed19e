import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { type Address, encodeDeployData, type Hex, parseAbi } from "viem";
import { type ChainClient, chainClient, deploy, execute } from "../../src/devnet/ChainClient.js";
import type { ManifestChain } from "../../src/devnet/DevnetManifest.js";
import { roleAddress } from "../../src/devnet/devAccounts.js";

const abi = parseAbi([
  "function setAssetSources(address[] assets, address[] sources)",
  "function getSourceOfAsset(address) view returns (address)",
  "function latestAnswer() view returns (int256)",
]);
const aggregatorAbi = parseAbi(["constructor(int256 initialAnswer)"]);

const aggregatorBytecode = async (): Promise<Hex> => {
  const path = createRequire(import.meta.url).resolve(
    "@aave/core-v3/artifacts/contracts/mocks/oracle/CLAggregators/MockAggregator.sol/MockAggregator.json",
  );
  return (JSON.parse(await readFile(path, "utf8")) as { bytecode: Hex }).bytecode;
};

/**
 * Moves one asset's price in a chain's Aave V3 oracle as Aave's governance would: a new price source
 * set on the oracle (a MockAggregator of Aave's own artifacts answering the new price). Prices are
 * given in percent of the asset's price when first moved, so a test can drop and restore it.
 *
 * `settle`, when given, runs between the new source's deployment and the block that sets it: a test
 * that asserts the block an alert names passes the notifier probe (devnetNotifierProbe.ts), so that
 * the block before the price change is planned before the change is mined.
 */
export const aaveOracle = (chain: ManifestChain, symbol: string, settle?: () => Promise<void>) => {
  const client: ChainClient = chainClient(chain.chain_id, chain.name, chain.rpc_url);
  const market = chain.lending_markets.find((m) => m.kind === "aave_v3");
  if (market === undefined) throw new Error(`no Aave V3 market on ${chain.name}`);
  const oracle = market.contracts.oracle as Address;
  const asset = market.assets.find((a) => a.symbol === symbol)!.asset as Address;
  const deployer = roleAddress("deployer");
  let original: bigint | undefined;
  return {
    pool: market.address.toLowerCase(),
    /** Sets the price to `percent` of the original; answers the block the oracle changed in. */
    setPercent: async (percent: number): Promise<bigint> => {
      if (original === undefined) {
        const source = await client.publicClient.readContract({
          address: oracle,
          abi,
          functionName: "getSourceOfAsset",
          args: [asset],
        });
        original = await client.publicClient.readContract({
          address: source,
          abi,
          functionName: "latestAnswer",
        });
      }
      const source = await deploy(
        client,
        deployer,
        encodeDeployData({
          abi: aggregatorAbi,
          bytecode: await aggregatorBytecode(),
          args: [(original * BigInt(percent)) / 100n],
        }),
      );
      await settle?.();
      const receipt = await execute(client, {
        from: deployer,
        address: oracle,
        abi,
        functionName: "setAssetSources",
        args: [[asset], [source]],
      });
      return receipt.blockNumber;
    },
  };
};
