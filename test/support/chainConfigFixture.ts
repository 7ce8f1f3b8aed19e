import { ChainConfig, NativeAsset } from "../../src/chains/ChainsConfig.js";

/** A chain for unit tests: chain 1 with ETH, no tokens, pools or protocols, with `overrides` applied. */
export const testChainConfig = (overrides: Partial<ConstructorParameters<typeof ChainConfig>[0]> = {}) =>
  ChainConfig.make({
    chain_id: 1,
    name: "ethereum",
    rpc_url: "http://127.0.0.1:1",
    tags: ["default"],
    native: NativeAsset.make({ symbol: "ETH", name: "Ether", decimals: 18 }),
    stablecoins: [],
    tokens: [],
    quote_tokens: [],
    protocols: [],
    logos: {},
    urls: {},
    traces: false,
    confirmations: 0,
    finality_depth: 4,
    ...overrides,
  });
