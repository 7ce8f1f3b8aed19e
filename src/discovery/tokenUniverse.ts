import type { ChainConfig } from "../chains/ChainsConfig.js";
import { lendingTokenKey, tokenMetadataKey, yieldSplitTokenKey } from "../indexer/indexKeys.js";
import type { Db } from "../storage/Level.js";

/** Where a chain's universe comes from, in the order a capped universe keeps them. */
export interface UniverseSources {
  /** Tokens of public and operator token lists for a chain id (docs/token-lists.md). */
  readonly listed: (chainId: number) => ReadonlyArray<string>;
}

/** The tokens a chain's wallets are swept for, and how many came from each source. */
export interface TokenUniverse {
  readonly tokens: ReadonlyArray<string>;
  readonly counts: {
    readonly configured: number;
    readonly listed: number;
    readonly lending: number;
    readonly yield_split: number;
    readonly seen: number;
  };
  /** Tokens left out by the cap. */
  readonly dropped: number;
}

const NATIVE = "0x0000000000000000000000000000000000000000";

/** Every key under `prefix`, the part after it (a token address). */
const suffixes = async (db: Db, prefix: string): Promise<ReadonlyArray<string>> => {
  const out: Array<string> = [];
  for await (const key of db.keys({ gte: prefix, lt: `${prefix}~` }))
    out.push((key as string).slice(prefix.length));
  return out;
};

/**
 * The chain's token universe: the configured `tokens`, the token lists for its chain id, the
 * lending and yield-splitting tokens the index knows (from live blocks or from discovery's reads
 * of reserve and market lists), and every token the index has metadata for (every token a live
 * block moved or a known pool holds). A 1.1M-token chain cannot be swept whole (MetaMask and
 * rotki sweep lists of 10^3-10^4), so the universe is capped at `max` tokens, kept in that order:
 * curated sources first, then what live blocks showed.
 */
export const tokenUniverse = async (
  db: Db,
  chain: ChainConfig,
  sources: UniverseSources,
  max: number,
): Promise<TokenUniverse> => {
  const [lending, yieldSplit, seen] = await Promise.all([
    suffixes(db, lendingTokenKey(chain.chain_id, "")),
    suffixes(db, yieldSplitTokenKey(chain.chain_id, "")),
    suffixes(db, tokenMetadataKey(chain.chain_id, "")),
  ]);
  const groups = [
    ["configured", chain.tokens],
    ["listed", sources.listed(chain.chain_id)],
    ["lending", lending],
    ["yield_split", yieldSplit],
    ["seen", seen],
  ] as const;
  const kept = new Set<string>();
  const counts = { configured: 0, listed: 0, lending: 0, yield_split: 0, seen: 0 };
  let dropped = 0;
  for (const [source, tokens] of groups) {
    for (const token of tokens) {
      const address = token.toLowerCase();
      if (address === NATIVE || kept.has(address) || !/^0x[0-9a-f]{40}$/.test(address)) continue;
      if (kept.size >= max) {
        dropped++;
        continue;
      }
      kept.add(address);
      counts[source]++;
    }
  }
  return { tokens: [...kept], counts, dropped };
};
