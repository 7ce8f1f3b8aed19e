/**
 * Prints the "Examples from the devnet" section of docs/positions.md: one positions response entry per
 * type, each read through HTTP from the service running on the embedded devnet (started here, as the
 * integration tests start it, and stopped at the end). Run: `npx tsx bench/positionExamples.ts`, then
 * replace the section with what it prints. Logo URLs are shown under http://localhost:8080.
 */
import { startDevnetService } from "../test/support/devnetService.js";

type Entry = Record<string, unknown> & { type: string; chain_id: number };

interface Example {
  /** The wallet's manifest role. */
  readonly wallet: string;
  readonly chain: number;
  readonly caption: string;
  readonly pick: (entry: Entry) => boolean;
}

const EXAMPLES: ReadonlyArray<Example> = [
  {
    wallet: "every_type",
    chain: 1,
    caption: "`AmmV2`: the devnet's `every_type` on ethereum, its Uniswap V2 WETH/USDC LP tokens",
    pick: (e) => e.type === "AmmV2" && e.protocol === "UniswapV2",
  },
  {
    wallet: "every_type",
    chain: 1,
    caption: "`Nft`: `every_type` on ethereum, its Uniswap V3 NFT in the positions' WETH/USDC pool",
    pick: (e) => e.type === "Nft",
  },
  {
    wallet: "every_type",
    chain: 8453,
    caption: "`Nft` of an Algebra pool: `every_type` on base (the dynamic fee is in `fee`)",
    pick: (e) => e.type === "Nft" && e.protocol === "AlgebraIntegral",
  },
  {
    wallet: "every_type",
    chain: 1,
    caption:
      "`NftV4`: `every_type` on ethereum, its NFT in the native-ETH/USDC pool (token0 is address zero)",
    pick: (e) => e.type === "NftV4",
  },
  {
    wallet: "every_type",
    chain: 1,
    caption: "`Tokenized`: `every_type` on ethereum, its Aave V3 variable debt (a negative `usd_value`)",
    pick: (e) => e.type === "Tokenized" && e.token_type === "VariableDebtV3",
  },
  {
    wallet: "every_type",
    chain: 1,
    caption: "`LendingV2`: `every_type` on ethereum, its WETH supply in the cToken market",
    pick: (e) => e.type === "LendingV2" && e.token_type === "Supply",
  },
  {
    wallet: "every_type",
    chain: 8453,
    caption: "`LendingV2Fork`: `every_type` on base, its USDC borrow in the fork's cToken market",
    pick: (e) => e.type === "LendingV2Fork" && e.token_type === "Borrow",
  },
  {
    wallet: "every_type",
    chain: 1,
    caption: "`LendingV3`: `every_type` on ethereum, its Comet account (WETH collateral, USDC borrowed)",
    pick: (e) => e.type === "LendingV3",
  },
  {
    wallet: "vault_holder",
    chain: 1,
    caption:
      "`Erc4626`: the devnet's `vault_holder` on ethereum, its shares in the vault over the USDC vault (`nested`), priced through the inner vault (one dvUSDC share = 1 USDC)",
    pick: (e) => e.type === "Erc4626" && e.token_symbol === "dvvUSDC",
  },
  {
    wallet: "pendle_holder",
    chain: 1,
    caption:
      "`YieldSplit`: the devnet's `pendle_holder` on ethereum, its YT of the `future` expiry (1,000 USDC split into PT and YT about a year before expiry). The market's implied APY prices the PT below par, so the YT is worth the rest; the vault behind the SY grew 7.7 % after the split, which the YT collects as interest (`asset_rewards`, in `usd_value`)",
    pick: (e) => e.type === "YieldSplit" && e.token_type === "Yield" && e.expired === false,
  },
  {
    wallet: "restaker",
    chain: 1,
    caption:
      "`RestakeStrategy`: the devnet's `restaker` on ethereum, its shares in the WETH strategy after 0.3 WETH of rewards reached the strategy (3 WETH deposited, 3e18 shares, now worth 3.3 WETH)",
    pick: (e) => e.type === "RestakeStrategy" && e.underlying_token_symbol === "WETH",
  },
];

const env = await startDevnetService({ requestTimeoutMs: 60_000 });
try {
  const chainOf = (id: number) => env.devnet.manifest.chains.find((c) => c.chain_id === id)!;
  const sections: string[] = [];
  for (const example of EXAMPLES) {
    const wallet = chainOf(example.chain).wallets[example.wallet];
    const res = await env.get(`/beta/evm/defi/positions/${wallet}?chain_ids=${example.chain}`);
    if (res.status !== 200) throw new Error(`${example.wallet} on ${example.chain}: HTTP ${res.status}`);
    const { positions } = (await res.json()) as { positions: Entry[] };
    const entry = positions.find(example.pick);
    if (entry === undefined) throw new Error(`no entry for: ${example.caption}`);
    const json = JSON.stringify(entry, null, 2)
      .replaceAll(env.service.baseUrl, "http://localhost:8080")
      // Byte arrays (V4 pool id and salt) on one line each.
      .replace(/\[\s*(\d+(?:,\s*\d+)*)\s*\]/g, (_, items: string) => `[${items.split(/,\s*/).join(", ")}]`);
    sections.push(`${example.caption}:\n\n\`\`\`json\n${json}\n\`\`\``);
  }
  process.stdout.write(`${sections.join("\n\n")}\n`);
} finally {
  await env.stop();
}
process.exit(0);
