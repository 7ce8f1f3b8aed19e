/** One devnet chain: who it imitates and what is seeded on it. */
export interface DevnetChainSpec {
  readonly chainId: number;
  /** Lower-case API name used in the chains config. */
  readonly name: string;
  /** Tags for `chain_ids`; `ink` has none so tag expansion has something to leave out. */
  readonly tags: readonly string[];
  /** Whether the wallet with 1,200+ distinct tokens lives on this chain (only one chain needs it). */
  readonly pagingWallet: boolean;
  /** Whether the seed opens the liquidity positions of docs/devnet.md here (ink has none, so one chain is empty). */
  readonly liquidityPositions: boolean;
  /** Whether Algebra Integral is deployed here, with its positions (only base, as in the spec). */
  readonly algebra: boolean;
}

/** The four devnet chains, in start order. */
export const DEVNET_CHAINS: readonly DevnetChainSpec[] = [
  {
    chainId: 1,
    name: "ethereum",
    tags: ["default", "mainnet"],
    pagingWallet: true,
    liquidityPositions: true,
    algebra: false,
  },
  {
    chainId: 8453,
    name: "base",
    tags: ["default", "mainnet"],
    pagingWallet: false,
    liquidityPositions: true,
    algebra: true,
  },
  {
    chainId: 10,
    name: "optimism",
    tags: ["default", "mainnet"],
    pagingWallet: false,
    liquidityPositions: true,
    algebra: false,
  },
  { chainId: 57073, name: "ink", tags: [], pagingWallet: false, liquidityPositions: false, algebra: false },
];
