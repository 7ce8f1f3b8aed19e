import type { IndexCache } from "../indexer/IndexCache.js";
import type { ServiceMetrics } from "./Metrics.js";

/** Reports the hit ratios of the index views an API worker keeps in memory, one series per view. */
export const watchIndexCaches = (metrics: ServiceMetrics, cache: IndexCache) => {
  const views = {
    index_wallet_tokens: cache.wallets,
    index_wallet_nfts: cache.nfts,
    index_wallet_markets: cache.markets,
    index_token_pools: cache.pools,
    index_pools: cache.poolsById,
    index_lending_tokens: cache.lending,
    index_token_metadata: cache.metadata,
  };
  for (const [name, lru] of Object.entries(views))
    metrics.watchCache(name, () => ({ hits: lru.hits, misses: lru.misses }));
};
