import { Schema } from "effect";
import { ChainConfig, ChainsConfigFile, NativeAsset, ProtocolConfig } from "../chains/ChainsConfig.js";
import type { ManifestChain } from "./DevnetManifest.js";
import { aaveProtocols } from "./lending/aave/aaveProtocols.js";
import { compoundProtocols } from "./lending/compoundProtocols.js";

const lower = (address: string): string => address.toLowerCase();

const token = (chain: ManifestChain, symbol: string): string => {
  const entry = chain.tokens[symbol];
  if (entry === undefined) throw new Error(`devnet chain ${chain.name} has no ${symbol}`);
  return lower(entry.address);
};

const contract = (chain: ManifestChain, name: string): string => {
  const address = chain.contracts[name];
  if (address === undefined) throw new Error(`devnet chain ${chain.name} has no ${name}`);
  return lower(address);
};

const protocols = (chain: ManifestChain): ProtocolConfig[] => {
  const start_block = chain.amm_start_block;
  return [
    new ProtocolConfig({
      protocol: "UniswapV2",
      kind: "v2",
      address: contract(chain, "uniswap_v2_factory"),
      start_block,
    }),
    new ProtocolConfig({
      protocol: "SushiSwapV2",
      kind: "v2",
      address: contract(chain, "sushiswap_v2_factory"),
      start_block,
    }),
    new ProtocolConfig({
      protocol: "UniswapV3",
      kind: "v3",
      address: contract(chain, "uniswap_v3_factory"),
      position_manager: contract(chain, "uniswap_v3_position_manager"),
      start_block,
    }),
    new ProtocolConfig({
      protocol: "SushiSwapV3",
      kind: "v3",
      address: contract(chain, "sushiswap_v3_factory"),
      position_manager: contract(chain, "sushiswap_v3_position_manager"),
      start_block,
    }),
    new ProtocolConfig({
      protocol: "UniswapV4",
      kind: "v4",
      address: contract(chain, "uniswap_v4_pool_manager"),
      position_manager: contract(chain, "uniswap_v4_position_manager"),
      state_view: contract(chain, "uniswap_v4_state_view"),
      start_block,
    }),
    // Algebra Integral is deployed on base only (docs/devnet.md).
    ...(chain.contracts.algebra_factory === undefined
      ? []
      : [
          new ProtocolConfig({
            protocol: "AlgebraIntegral",
            kind: "algebra",
            address: contract(chain, "algebra_factory"),
            position_manager: contract(chain, "algebra_position_manager"),
            start_block,
          }),
        ]),
    ...aaveProtocols(chain),
    ...compoundProtocols(chain),
    // The restaking stand-ins are on ethereum only (docs/devnet.md, "Vaults and restaking").
    ...(chain.restaking === null
      ? []
      : [
          new ProtocolConfig({
            protocol: chain.restaking.protocol,
            kind: "restake",
            address: lower(chain.restaking.strategy_manager),
          }),
        ]),
    // Pendle V2 is on ethereum, base and optimism (docs/devnet.md, "Pendle").
    ...(chain.pendle === null
      ? []
      : [
          new ProtocolConfig({
            protocol: chain.pendle.protocol,
            kind: "pendle",
            address: lower(chain.pendle.yield_contract_factory),
            market_factory: lower(chain.pendle.market_factory),
          }),
        ]),
  ];
};

const chainConfig = (chain: ManifestChain, tokenList: string): ChainConfig => {
  const weth = token(chain, "WETH");
  return new ChainConfig({
    chain_id: chain.chain_id,
    name: chain.name,
    rpc_url: chain.rpc_url,
    ws_url: chain.ws_url,
    tags: chain.tags,
    native: new NativeAsset({ symbol: "ETH", name: "Ether", decimals: 18 }),
    wrapped_native: weth,
    stablecoins: ["USDC", "USDT", "DAI"].map((symbol) => token(chain, symbol)),
    tokens: ["WETH", "USDC", "USDT", "DAI", "WBTC", "UNI"].map((symbol) => token(chain, symbol)),
    quote_tokens: ["USDC", "USDT", "DAI"].map((symbol) => token(chain, symbol)),
    protocols: protocols(chain),
    logos: {},
    urls: {
      [token(chain, "UNI")]: "https://uniswap.org",
      [token(chain, "USDC")]: "https://www.circle.com/usdc",
    },
    // The devnet reuses public chain ids, whose public lists name contracts it does not have: its
    // own list (devnetTokenList) names its tokens as an operator's list would.
    token_lists: [tokenList],
    bundled_token_lists: false,
    // No start_block, as a real chain is configured: the index starts at the head of the first
    // start, and the seeded history before it is found by discovery (docs/real-chains.md).
    traces: true,
    confirmations: 0,
    finality_depth: 64,
  });
};

/**
 * The devnet's chains in the `CHAINS_CONFIG` file format, encoded through its Schema so that
 * `decodeChainsConfigFile` reads it back unchanged. anvil serves `debug_traceBlockByNumber`, so traces are on.
 */
export const devnetChainsConfig = (chains: readonly ManifestChain[], tokenList: string): unknown =>
  Schema.encodeSync(ChainsConfigFile)(
    new ChainsConfigFile({ chains: chains.map((chain) => chainConfig(chain, tokenList)) }),
  );

/**
 * The devnet's named tokens (`tokens` of each chain's manifest) as a token list in the Uniswap
 * format, which its chains file names in `token_lists`.
 */
export const devnetTokenList = (chains: readonly ManifestChain[]) => ({
  name: "Embedded devnet",
  timestamp: new Date(0).toISOString(),
  version: { major: 1, minor: 0, patch: 0 },
  tokens: chains.flatMap((chain) =>
    Object.entries(chain.tokens).map(([symbol, token]) => ({
      chainId: chain.chain_id,
      address: lower(token.address),
      symbol,
      name: symbol,
      decimals: token.decimals,
    })),
  ),
});
