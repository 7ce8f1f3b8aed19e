import type { ChainConfig } from "../chains/ChainsConfig.js";
import type { IndexedPool } from "../indexer/IndexRecords.js";
import { logoUrl } from "../logos/logoUrl.js";
import type { PriceQuote } from "../pricing/selectPrices.js";
import type { BalanceEntry } from "./toBalanceEntry.js";

export type MetadataField = "logo" | "url" | "pools";

/** A balance entry as returned: the base fields plus whatever options added. */
export interface ResponseEntry extends BalanceEntry {
  readonly historical_prices?: ReadonlyArray<{ readonly offset_hours: number; readonly price_usd: number }>;
  readonly token_metadata?: { readonly logo?: string; readonly url?: string };
  readonly pool?: {
    readonly pool_type: string;
    readonly address: string;
    readonly chain_id: number;
    readonly tokens: ReadonlyArray<string>;
  };
}

/** `UniswapV2` -> `uniswap_v2`, `SushiSwapV3` -> `sushi_swap_v3`: the original API's pool_type style. */
export const poolType = (protocol: string): string =>
  protocol
    .replace(/([a-z])([A-Z])/g, "$1_$2")
    .replace(/([A-Za-z])(V\d+)$/i, "$1_$2")
    .replace(/__+/g, "_")
    .toLowerCase();

const poolOf = (chainId: number, pool: IndexedPool) => ({
  pool_type: poolType(pool.protocol),
  address: pool.pool,
  chain_id: chainId,
  tokens: [pool.token0, pool.token1],
});

/** Adds `token_metadata` (logo, url) and `pool` when `metadata` asks for them. */
export const decorateEntry = (
  entry: BalanceEntry,
  chain: ChainConfig,
  price: PriceQuote | undefined,
  metadata: ReadonlySet<MetadataField>,
  publicUrl: string,
): ResponseEntry => {
  if (metadata.size === 0) return entry;
  const url = chain.urls[entry.address];
  const wantsTokenMetadata = metadata.has("logo") || (metadata.has("url") && url !== undefined);
  return {
    ...entry,
    ...(wantsTokenMetadata
      ? {
          token_metadata: {
            ...(metadata.has("logo") ? { logo: logoUrl(publicUrl, chain.chain_id, entry.address) } : {}),
            ...(metadata.has("url") && url !== undefined ? { url } : {}),
          },
        }
      : {}),
    ...(metadata.has("pools") && price?.pool !== undefined
      ? { pool: poolOf(chain.chain_id, price.pool) }
      : {}),
  };
};
