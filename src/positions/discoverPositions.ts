import type { ChainConfig } from "../chains/ChainsConfig.js";
import type { IndexReader, WalletPositionNft } from "../indexer/IndexReader.js";
import type { IndexedPool } from "../indexer/IndexRecords.js";
import { positionManagersOf } from "../indexer/planPositionNfts.js";
import type { PositionManager } from "../indexer/positionNftEvents.js";
import { discoverLending, type LendingCandidates } from "./lending/discoverLending.js";
import { discoverRestaking, type HeldStrategy } from "./restaking/discoverRestaking.js";
import { discoverVaults, type HeldVault } from "./vaults/discoverVaults.js";
import { discoverYieldSplit, type HeldYieldToken } from "./yieldSplit/discoverYieldSplit.js";

/** A position NFT the wallet holds, with its manager and pool as the index knows them. */
export interface HeldNft {
  readonly nft: WalletPositionNft;
  readonly manager: PositionManager;
  readonly pool: IndexedPool;
  readonly tickLower: number;
  readonly tickUpper: number;
}

/** Everything the index says the wallet may hold positions in on one chain. */
export interface Candidates {
  /** Constant-product pools of registry factories whose LP token the wallet touched. */
  readonly lpPools: ReadonlyArray<IndexedPool>;
  readonly nfts: ReadonlyArray<HeldNft>;
  readonly lending: LendingCandidates;
  /** ERC-4626 vaults among the tokens the wallet touched. */
  readonly vaults: ReadonlyArray<HeldVault>;
  readonly restaking: ReadonlyArray<HeldStrategy>;
  /** PT, YT and market LP tokens of registry yield-splitting factories among the tokens the wallet touched. */
  readonly yieldSplit: ReadonlyArray<HeldYieldToken>;
}

/**
 * Finds where a wallet may hold positions on a chain, from the index only: LP tokens of known
 * V2 factories among the tokens it touched, the registry position NFTs it holds (`held` "now"), or
 * has been seen holding ("ever": for a read at a past block, whose owners decide), with the pool
 * each was minted in, its lending markets (discoverLending), the ERC-4626 vaults among its tokens
 * (discoverVaults), its restaking strategies (discoverRestaking) and its yield-splitting tokens
 * (discoverYieldSplit). NFTs minted before the
 * index's history (pool unknown) are left out.
 */
export const discoverPositions = async (
  index: IndexReader,
  chain: ChainConfig,
  wallet: string,
  held: "now" | "ever" = "now",
): Promise<Candidates> => {
  const touched = (await index.touchedTokens(wallet)).filter(
    (t) => t.chain_id === chain.chain_id && t.standard === "erc20",
  );
  const pools = await index.pools(
    chain.chain_id,
    touched.map((t) => t.token),
  );
  const lpPools = pools.filter((pool): pool is IndexedPool => pool !== undefined && pool.kind === "v2");

  const managers = positionManagersOf(chain);
  const nftsOf = held === "now" ? index.positionNfts : index.positionNftsEverHeld;
  const heldNfts = (await nftsOf(wallet)).filter(
    (nft) => nft.chain_id === chain.chain_id && nft.minted !== undefined && managers.has(nft.manager),
  );
  const nftPools = await index.pools(
    chain.chain_id,
    heldNfts.map((nft) => nft.minted!.pool),
  );
  const nfts: Array<HeldNft> = [];
  heldNfts.forEach((nft, i) => {
    const pool = nftPools[i];
    const manager = managers.get(nft.manager)!;
    if (pool === undefined || pool.factory !== manager.factory) return;
    nfts.push({ nft, manager, pool, tickLower: nft.minted!.tick_lower, tickUpper: nft.minted!.tick_upper });
  });
  const lending = await discoverLending(
    index,
    chain,
    wallet,
    touched.map((t) => t.token),
  );
  const [vaults, restaking, yieldSplit] = await Promise.all([
    discoverVaults(
      index,
      chain.chain_id,
      touched.map((t) => t.token),
    ),
    discoverRestaking(index, chain, wallet),
    discoverYieldSplit(
      index,
      chain,
      touched.map((t) => t.token),
    ),
  ]);
  return { lpPools, nfts, lending, vaults, restaking, yieldSplit };
};
