import { addNewKeys } from "../../indexer/addNewKeys.js";
import type { IndexedPool, NftRecord, WalletNft } from "../../indexer/IndexRecords.js";
import { nftKey, walletHeldNftKey, walletNftKey } from "../../indexer/indexKeys.js";
import type { IndexReads } from "../../indexer/PendingWrites.js";
import type { Operation } from "../../storage/Level.js";
import { poolRecordOps } from "./poolRecords.js";

/** A position NFT the wallet holds at the discovery block, with the pool and range its manager records. */
export interface FoundNft {
  readonly manager: string;
  readonly tokenId: bigint;
  readonly pool: IndexedPool;
  readonly tickLower: number;
  readonly tickUpper: number;
}

/**
 * The writes that put found NFTs in the index as the indexer puts a mint it saw: the wallet holds it
 * (`wn!`, at the discovery block, as if received then) and has held it (`wh!`, for reads at past
 * blocks once it is gone), where it was minted (`nft!`), and its pool where the index has none.
 * Keys the index already holds are left alone (the indexer's record of when the wallet received it
 * is the truer one).
 */
export const nftOps = async (
  db: IndexReads,
  chainId: number,
  wallet: string,
  block: number,
  found: ReadonlyArray<FoundNft>,
): Promise<ReadonlyArray<Operation>> => {
  if (found.length === 0) return [];
  const writes: Array<readonly [string, WalletNft | NftRecord]> = found.flatMap((nft) => [
    [walletNftKey(wallet, chainId, nft.manager, nft.tokenId), { block } satisfies WalletNft] as const,
    [walletHeldNftKey(wallet, chainId, nft.manager, nft.tokenId), { block } satisfies WalletNft] as const,
    [
      nftKey(chainId, nft.manager, nft.tokenId),
      { pool: nft.pool.pool, tick_lower: nft.tickLower, tick_upper: nft.tickUpper } satisfies NftRecord,
    ] as const,
  ]);
  const [records, pools] = await Promise.all([
    addNewKeys(db, writes),
    poolRecordOps(
      db,
      chainId,
      found.map((nft) => nft.pool),
    ),
  ]);
  return [...records.ops, ...pools];
};
