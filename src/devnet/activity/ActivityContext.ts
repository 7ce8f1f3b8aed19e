import type { Address } from "viem";
import { type ChainClient, chainClient } from "../ChainClient.js";
import type { ManifestChain, ManifestPool } from "../DevnetManifest.js";

/** What the activity generator knows about one chain, plus the positions it opened itself. */
export interface ActivityContext {
  readonly client: ChainClient;
  readonly chain: ManifestChain;
  /** The demo wallets activity moves assets between (anvil unlocks them). */
  readonly wallets: readonly Address[];
  /** V3 and V4 position NFTs minted by this run and not yet burned, by owner. */
  readonly openV3: Map<bigint, Address>;
  readonly openV4: Map<bigint, Address>;
  /** Wallets that added V2 liquidity in this run and may remove it. */
  readonly v2Providers: Set<Address>;
  /** Counts actions, to rotate senders deterministically. */
  turn: number;
}

/** Builds the context for one chain of the manifest. */
export const activityContext = (chain: ManifestChain): ActivityContext => ({
  client: chainClient(chain.chain_id, chain.name, chain.rpc_url),
  chain,
  wallets: ["activity_a", "activity_b", "activity_c"].map((role) => chain.wallets[role] as Address),
  openV3: new Map(),
  openV4: new Map(),
  v2Providers: new Set(),
  turn: 0,
});

/** The next sender and a different receiver, rotating through the activity wallets. */
export const nextPair = (ctx: ActivityContext): { from: Address; to: Address } => {
  ctx.turn += 1;
  const from = ctx.wallets[ctx.turn % ctx.wallets.length]!;
  const to = ctx.wallets[(ctx.turn + 1) % ctx.wallets.length]!;
  return { from, to };
};

/** Address of `symbol` on the chain. */
export const tokenAddress = (ctx: ActivityContext, symbol: string): Address => {
  const token = ctx.chain.tokens[symbol];
  if (token === undefined) throw new Error(`no ${symbol} on ${ctx.chain.name}`);
  return token.address as Address;
};

/** Address of a protocol contract by its manifest key. */
export const contractAddress = (ctx: ActivityContext, name: string): Address => {
  const address = ctx.chain.contracts[name];
  if (address === undefined) throw new Error(`no ${name} on ${ctx.chain.name}`);
  return address as Address;
};

/** The deep WETH/USDC pool of a given AMM kind. */
export const wethUsdcPool = (ctx: ActivityContext, kind: "v2" | "v3" | "v4"): ManifestPool => {
  const pool = ctx.chain.pools.find((p) => p.kind === kind && p.purpose === "weth_usdc_deep");
  if (pool === undefined) throw new Error(`no ${kind} WETH/USDC pool on ${ctx.chain.name}`);
  return pool;
};
