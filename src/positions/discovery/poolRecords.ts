import type { IndexedPool } from "../../indexer/IndexRecords.js";
import { poolKey, tokenPoolKey } from "../../indexer/indexKeys.js";
import type { IndexReads } from "../../indexer/PendingWrites.js";
import type { Operation } from "../../storage/Level.js";

/**
 * The writes that make pools of discovered NFTs known as the indexer makes a pool it saw created:
 * the pool record and one per-token entry for each of its two tokens (the native currency's zero
 * address included, as for V4 pools). Positions are read only in pools the index knows, so an NFT
 * found without the pool's creation in the index's history needs this. Pools the index already holds
 * are left as they are: their record, creation block included, is the indexer's.
 */
export const poolRecordOps = async (
  db: IndexReads,
  chainId: number,
  pools: ReadonlyArray<IndexedPool>,
): Promise<ReadonlyArray<Operation>> => {
  const unique = [...new Map(pools.map((pool) => [pool.pool, pool])).values()];
  if (unique.length === 0) return [];
  const known = await db.getMany(unique.map((pool) => poolKey(chainId, pool.pool)));
  return unique.flatMap((pool, i): Array<Operation> => {
    if (known[i] !== undefined) return [];
    return [
      { type: "put", key: poolKey(chainId, pool.pool), value: pool },
      ...[pool.token0, pool.token1].map(
        (token): Operation => ({
          type: "put",
          key: tokenPoolKey(chainId, token, pool.pool),
          value: pool.pool,
        }),
      ),
    ];
  });
};
