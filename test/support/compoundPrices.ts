import { type Address, parseAbi } from "viem";
import { type ChainClient, chainClient, execute } from "../../src/devnet/ChainClient.js";
import type { ManifestChain } from "../../src/devnet/DevnetManifest.js";
import { roleAddress } from "../../src/devnet/devAccounts.js";

const abi = parseAbi([
  "function setDirectPrice(address asset, uint256 price)",
  "function getUnderlyingPrice(address cToken) view returns (uint256)",
  "function setAnswer(int256 answer_)",
  "function latestAnswer() view returns (int256)",
]);

/** The chain's lending market of a kind, from the manifest. */
const marketOf = (chain: ManifestChain, kind: "ctoken" | "comet") => {
  const market = chain.lending_markets.find((m) => m.kind === kind);
  if (market === undefined) throw new Error(`no ${kind} market on ${chain.name}`);
  return market;
};

/**
 * Moves one asset's price where the devnet's cToken and Comet markets read it, as their owners would:
 * the comptroller's SimplePriceOracle (`setDirectPrice`, which emits `PricePosted`), and the Comet's
 * Chainlink-style DevPriceFeed of the asset (`setAnswer`, which emits `AnswerUpdated`). Prices are given
 * in percent of the price when first moved; each setter answers the block the price changed in.
 */
export const compoundPrices = (chain: ManifestChain, symbol: string) => {
  const client: ChainClient = chainClient(chain.chain_id, chain.name, chain.rpc_url);
  const from = roleAddress("deployer");
  const ctoken = marketOf(chain, "ctoken");
  const comet = marketOf(chain, "comet");
  const cToken = ctoken.assets.find((a) => a.symbol === symbol)!;
  const oracle = ctoken.contracts.oracle as Address;
  const feed = comet.contracts[`price_feed_${symbol.toLowerCase()}`] as Address;
  const read = (
    address: Address,
    functionName: "getUnderlyingPrice" | "latestAnswer",
    args: readonly unknown[],
  ) => client.publicClient.readContract({ address, abi, functionName, args } as never) as Promise<bigint>;
  let oraclePrice: bigint | undefined;
  let feedAnswer: bigint | undefined;
  return {
    comptroller: ctoken.address.toLowerCase(),
    comet: comet.address.toLowerCase(),
    /** Sets the comptroller oracle's price to `percent` of the original. */
    setOraclePercent: async (percent: number): Promise<bigint> => {
      oraclePrice ??= await read(oracle, "getUnderlyingPrice", [cToken.supply_token]);
      const receipt = await execute(client, {
        from,
        address: oracle,
        abi,
        functionName: "setDirectPrice",
        args: [cToken.asset as Address, (oraclePrice * BigInt(percent)) / 100n],
      });
      return receipt.blockNumber;
    },
    /** Sets the Comet price feed's answer to `percent` of the original. */
    setFeedPercent: async (percent: number): Promise<bigint> => {
      feedAnswer ??= await read(feed, "latestAnswer", []);
      const receipt = await execute(client, {
        from,
        address: feed,
        abi,
        functionName: "setAnswer",
        args: [(feedAnswer * BigInt(percent)) / 100n],
      });
      return receipt.blockNumber;
    },
  };
};
