import type { ChainConfig } from "../../chains/ChainsConfig.js";
import type { IndexedPool, TokenMetadata } from "../../indexer/IndexRecords.js";
import { poolKey } from "../../indexer/indexKeys.js";
import { PendingWrites, type SyncStore } from "../../indexer/PendingWrites.js";
import { poolViewWrites, registryByAddress, registryPool } from "../../indexer/planPoolViews.js";
import type { Operation } from "../../storage/Level.js";
import { poolTokenMetadataOps } from "./poolTokenMetadata.js";
import type { ListedPair } from "./v2Pairs.js";

/**
 * The writes for V2 pairs a factory listed (v2Pairs.ts), as the indexer would have written them
 * from their `PairCreated`, but for the block: a listing cannot tell when a pair was created, so
 * the block it was listed at stands for it, as for the factory lookups' pools. A pair the index
 * already holds keeps its record (one from its creation event knows the real block). Then the
 * metadata of new pairs' tokens the index lacks.
 */
export const planListedPairs = async (
  db: SyncStore,
  chain: ChainConfig,
  factory: string,
  pairs: ReadonlyArray<ListedPair>,
  listedAt: number,
  readMetadata: (tokens: ReadonlyArray<string>) => Promise<ReadonlyArray<TokenMetadata>>,
): Promise<ReadonlyArray<Operation>> => {
  const pending = new PendingWrites(db);
  const registry = registryByAddress(chain);
  const known = await pending.getMany(pairs.map(({ pair }) => poolKey(chain.chain_id, pair)));
  const added: Array<IndexedPool> = [];
  pairs.forEach(({ pair, token0, token1 }, i) => {
    if (known[i] !== undefined) return;
    const pool = registryPool(registry, {
      amm: "v2",
      factory,
      pool: pair,
      token0,
      token1,
      block_number: listedAt,
    });
    if (pool === undefined) return;
    added.push(pool);
    pending.add(
      poolViewWrites(chain.chain_id, pool).map(([key, value]) => ({ type: "put" as const, key, value })),
    );
  });
  pending.add(
    await poolTokenMetadataOps(
      pending,
      chain.chain_id,
      added.flatMap((pool) => [pool.token0, pool.token1]),
      readMetadata,
    ),
  );
  return [...pending.ops];
};
