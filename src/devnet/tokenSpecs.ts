/** How a token exposes its metadata, which decides the contract it is deployed from. */
export type TokenShape = "standard" | "bytes32" | "nameless";

/** What a token is for in the devnet's market design (written to the manifest as `role`). */
export type TokenRole =
  | "wrapped_native"
  | "stablecoin"
  | "weth_hop_only"
  | "v3_deep_v2_thin"
  | "low_liquidity"
  | "spam"
  | "no_pool";

/** One ERC-20 deployed on every chain. The whole supply is minted to the deployer, who seeds markets. */
export interface TokenSpec {
  readonly symbol: TokenSymbol;
  readonly name: string;
  readonly decimals: number;
  readonly shape: TokenShape;
  readonly role: TokenRole;
  /** Whole tokens minted (scaled by `decimals`). */
  readonly supply: bigint;
}

export type TokenSymbol = "WETH" | "USDC" | "USDT" | "DAI" | "WBTC" | "UNI" | "MKR" | "SPAM" | "NONAME";

/**
 * Every token except WETH (which is the WETH9 artifact and is minted by depositing ether). Deployment order
 * is fixed: addresses depend on the deployer's nonce.
 */
export const DEPLOYED_TOKENS: readonly TokenSpec[] = [
  {
    symbol: "USDC",
    name: "USD Coin",
    decimals: 6,
    shape: "standard",
    role: "stablecoin",
    supply: 100_000_000n,
  },
  {
    symbol: "USDT",
    name: "Tether USD",
    decimals: 6,
    shape: "standard",
    role: "stablecoin",
    supply: 100_000_000n,
  },
  {
    symbol: "DAI",
    name: "Dai Stablecoin",
    decimals: 18,
    shape: "standard",
    role: "stablecoin",
    supply: 100_000_000n,
  },
  {
    symbol: "WBTC",
    name: "Wrapped BTC",
    decimals: 8,
    shape: "standard",
    role: "weth_hop_only",
    supply: 21_000n,
  },
  {
    symbol: "UNI",
    name: "Uniswap",
    decimals: 18,
    shape: "standard",
    role: "v3_deep_v2_thin",
    supply: 10_000_000n,
  },
  { symbol: "MKR", name: "Maker", decimals: 18, shape: "bytes32", role: "low_liquidity", supply: 1_000_000n },
  {
    symbol: "SPAM",
    name: "Claim Rewards At devnet-airdrop.invalid",
    decimals: 18,
    shape: "standard",
    role: "spam",
    supply: 1_000_000_000_000n,
  },
  { symbol: "NONAME", name: "", decimals: 18, shape: "nameless", role: "no_pool", supply: 1_000_000n },
];

/** Raw amount of `whole` tokens with `decimals` decimals. */
export const units = (whole: number, decimals: number): bigint => {
  const [integer = "0", fraction = ""] = whole.toFixed(Math.min(decimals, 12)).split(".");
  return BigInt(integer + fraction.padEnd(decimals, "0").slice(0, decimals));
};
