import type { ChainConfig } from "../../chains/ChainsConfig.js";
import type { RawResult } from "../../chains/multicall3.js";
import { addressWord, intWord, rawCall, uintWord } from "../../chains/rawCalls.js";
import type { IndexedPool } from "../../indexer/IndexRecords.js";
import { positionManagersOf } from "../../indexer/planPositionNfts.js";
import type { PositionManager } from "../../indexer/positionNftEvents.js";
import { v4PoolId } from "../../pricing/standardPools.js";
import { type DiscoveryContext, type Findings, NO_FINDINGS, readAt } from "./DiscoveryContext.js";
import { NFTS_PER_MANAGER } from "./enumerableNfts.js";
import { type FoundNft, nftOps } from "./nftRecords.js";

/**
 * The registry's V4 PositionManagers: NFT contracts that are not ERC721Enumerable, so a wallet's
 * NFTs there are known only by id (from its Transfer logs of that one contract) and resolved here.
 */
export const v4PositionManagers = (chain: ChainConfig): ReadonlySet<string> =>
  new Set([...positionManagersOf(chain).values()].filter((m) => m.kind === "v4").map((m) => m.manager));

/** A V4 position as `getPoolAndPositionInfo` answers it: the pool key's five words, then the packed info. */
export interface V4PositionInfo {
  readonly currency0: string;
  readonly currency1: string;
  readonly fee: bigint;
  readonly tickSpacing: bigint;
  readonly hooks: string;
  readonly tickLower: number;
  readonly tickUpper: number;
}

/**
 * Decodes `getPoolAndPositionInfo(tokenId)`. The info packs, from the low bits, 8 bits of
 * `hasSubscriber`, 24 of tickLower, 24 of tickUpper and 200 of the truncated pool id; a burned or
 * never minted id answers an empty info, which reads as undefined.
 */
export const decodeV4PositionInfo = (result: RawResult | undefined): V4PositionInfo | undefined => {
  const currency0 = addressWord(result, 0);
  const currency1 = addressWord(result, 1);
  const fee = uintWord(result, 2);
  const tickSpacing = intWord(result, 3, 24);
  const hooks = addressWord(result, 4);
  const info = uintWord(result, 5);
  if (currency0 === undefined || currency1 === undefined || fee === undefined) return undefined;
  if (tickSpacing === undefined || hooks === undefined || info === undefined || info === 0n) return undefined;
  return {
    currency0,
    currency1,
    fee,
    tickSpacing,
    hooks,
    tickLower: Number(BigInt.asIntN(24, info >> 8n)),
    tickUpper: Number(BigInt.asIntN(24, info >> 32n)),
  };
};

/**
 * Resolves NFT ids of registry V4 PositionManagers (by manager: ids the wallet received, found in its
 * Transfer logs) to the records the indexer keeps: `ownerOf(id)` says whether the wallet still holds
 * it, `getPoolAndPositionInfo(id)` gives the pool key (the pool id is its hash) and the range. One
 * round trip for all of them; at most `cap` ids per manager, the highest first (the latest minted,
 * likeliest still held). Ids of other contracts are ignored.
 */
export const resolveV4Nfts = async (
  context: DiscoveryContext,
  walletAddress: string,
  ids: ReadonlyMap<string, ReadonlyArray<bigint>>,
  cap: number = NFTS_PER_MANAGER,
): Promise<Findings> => {
  const wallet = walletAddress.toLowerCase();
  const managers = positionManagersOf(context.chain);
  const asked: Array<{ manager: PositionManager; tokenId: bigint }> = [];
  const truncated: Array<string> = [];
  for (const [address, list] of ids) {
    const manager = managers.get(address.toLowerCase());
    if (manager === undefined || manager.kind !== "v4") continue;
    const unique = [...new Set(list)].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
    if (unique.length > cap)
      truncated.push(
        `${manager.protocol} position NFTs of ${manager.manager}: read ${cap} of ${unique.length}`,
      );
    for (const tokenId of unique.slice(0, cap)) asked.push({ manager, tokenId });
  }
  if (asked.length === 0) return NO_FINDINGS;

  const results = await readAt(
    context,
    asked.flatMap(({ manager, tokenId }) => [
      rawCall(manager.manager, "ownerOf(uint256)", tokenId),
      rawCall(manager.manager, "getPoolAndPositionInfo(uint256)", tokenId),
    ]),
  );
  const found = asked.flatMap(({ manager, tokenId }, i): Array<FoundNft> => {
    if (addressWord(results[2 * i], 0) !== wallet) return [];
    const position = decodeV4PositionInfo(results[2 * i + 1]);
    if (position === undefined) return [];
    const pool: IndexedPool = {
      pool: v4PoolId(position),
      kind: "v4",
      protocol: manager.protocol,
      factory: manager.factory,
      token0: position.currency0,
      token1: position.currency1,
      fee: Number(position.fee),
      tick_spacing: Number(position.tickSpacing),
      hooks: position.hooks,
      // Not the pool's initialisation, which a read cannot tell: the block discovery saw it at.
      created_block: context.block.number,
    };
    return [
      {
        manager: manager.manager,
        tokenId,
        pool,
        tickLower: position.tickLower,
        tickUpper: position.tickUpper,
      },
    ];
  });
  const ops = await nftOps(context.db, context.chain.chain_id, wallet, context.block.number, found);
  return truncated.length === 0 ? { ops } : { ops, truncated: truncated.join("; ") };
};
