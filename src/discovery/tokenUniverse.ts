import type { ChainConfig } from "../chains/ChainsConfig.js";
import {
  lendingTokenKey,
  tokenMetadataKey,
  tokenPoolChainPrefix,
  yieldSplitTokenKey,
} from "../indexer/indexKeys.js";
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
 * Of `seen` (sorted, as the index's keys are), those with a pool in the index first, then the rest,
 * `room` at most. A merge of the sorted token-pool keys (`tp!<chain>!<token>!<pool>`) against
 * `seen`: one pass over the keys, nothing held but the answer. Run only when `seen` overflows the
 * cap, since that pass reads every pool of the chain (about a million keys on mainnet).
 */
const pooledFirst = async (
  db: Db,
  chainId: number,
  seen: ReadonlyArray<string>,
  room: number,
): Promise<ReadonlyArray<string>> => {
  const prefix = tokenPoolChainPrefix(chainId);
  const pooled: Array<string> = [];
  const others: Array<string> = [];
  const pools = db.keys({ gte: prefix, lt: `${prefix}~` })[Symbol.asyncIterator]();
  let poolToken: string | undefined;
  const advance = async () => {
    const next = await pools.next();
    poolToken =
      next.done === true ? undefined : (next.value as string).slice(prefix.length, prefix.length + 42);
  };
  try {
    await advance();
    for (const token of seen) {
      while (poolToken !== undefined && poolToken < token) await advance();
      if (poolToken === token) pooled.push(token);
      else if (others.length < room) others.push(token);
      if (pooled.length >= room) break;
    }
  } finally {
    await pools.return?.();
  }
  return [...pooled, ...others].slice(0, room);
};

/**
 * The chain's token universe: the configured `tokens`, the token lists for its chain id, the
 * lending and yield-splitting tokens the index knows (from live blocks or from discovery's reads
 * of reserve and market lists), and every token the index has metadata for (every token a live
 * block moved or a known pool holds). A 1.1M-token chain cannot be swept whole (MetaMask and
 * rotki sweep lists of 10^3-10^4), so the universe is capped at `max` tokens, kept in that order:
 * curated sources first, then what live blocks showed; where those overflow the cap, the tokens
 * with a known pool come first, so an airdrop of a thousand pool-less spam tokens cannot push
 * out a traded one.
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
  ] as const;
  const kept = new Set<string>();
  const counts = { configured: 0, listed: 0, lending: 0, yield_split: 0, seen: 0 };
  let dropped = 0;
  const keep = (source: keyof typeof counts, tokens: ReadonlyArray<string>) => {
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
  };
  for (const [source, tokens] of groups) keep(source, tokens);
  const fresh = seen.filter(
    (token) => token !== NATIVE && !kept.has(token) && /^0x[0-9a-f]{40}$/.test(token),
  );
  const room = Math.max(0, max - kept.size);
  if (fresh.length <= room) keep("seen", fresh);
  else {
    const ranked = await pooledFirst(db, chain.chain_id, fresh, room);
    keep("seen", ranked);
    dropped += fresh.length - ranked.length;
  }
  return { tokens: [...kept], counts, dropped };
};
