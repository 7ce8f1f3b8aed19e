import { Context, Effect, Layer } from "effect";
import { type Db, Level } from "../storage/Level.js";
import type { IndexCheckpoint } from "./applyBlock.js";
import { IndexCache } from "./IndexCache.js";
import type { IndexedPool, TokenMetadata, TouchedToken } from "./IndexRecords.js";
import {
  blockTimeKey,
  indexCheckpointKey,
  poolKey,
  timeBlockBound,
  timeBlockPrefix,
  tokenMetadataKey,
  tokenPoolPrefix,
  walletTokenPrefix,
} from "./indexKeys.js";

export interface WalletToken extends TouchedToken {
  readonly chain_id: number;
  readonly token: string;
}

/**
 * Read side of the indexer's views, for the services that answer requests.
 * With a cache (the process's IndexCache, kept current by its indexer) the
 * request path mostly reads memory; without one, every call reads LevelDB.
 */
export const makeIndexReader = (db: Db, cache?: IndexCache) => ({
  /** Every (chain, token) the wallet has touched, ascending by chain then token. */
  touchedTokens: async (wallet: string): Promise<ReadonlyArray<WalletToken>> => {
    const cached = cache?.wallets.get(wallet);
    if (cached !== undefined) return cached;
    const prefix = walletTokenPrefix(wallet);
    const out: Array<WalletToken> = [];
    for await (const [key, value] of db.iterator({ gte: prefix, lt: `${prefix}~` })) {
      const [chain, token] = (key as string).slice(prefix.length).split("!");
      out.push({ ...(value as TouchedToken), chain_id: Number(chain), token: token! });
    }
    cache?.wallets.set(wallet, out);
    return out;
  },

  tokenMetadata: async (
    chainId: number,
    tokens: ReadonlyArray<string>,
  ): Promise<ReadonlyArray<TokenMetadata | undefined>> => {
    const key = (token: string) => `${chainId}|${token}`;
    const missing = tokens.filter((token) => cache?.metadata.get(key(token)) === undefined);
    if (missing.length > 0) {
      const read = (await db.getMany(
        missing.map((token) => tokenMetadataKey(chainId, token)),
      )) as ReadonlyArray<TokenMetadata | undefined>;
      if (cache === undefined) return read;
      missing.forEach((token, i) => {
        cache.metadata.set(key(token), read[i] ?? null);
      });
    }
    return tokens.map((token) => cache?.metadata.get(key(token)) ?? undefined);
  },

  /** Pools (of configured factories) that hold `token`. */
  poolsForToken: async (chainId: number, token: string): Promise<ReadonlyArray<IndexedPool>> => {
    const cached = cache?.pools.get(`${chainId}|${token}`);
    if (cached !== undefined) return cached;
    const prefix = tokenPoolPrefix(chainId, token);
    const ids: Array<string> = [];
    for await (const value of db.values({ gte: prefix, lt: `${prefix}~` })) ids.push(value as string);
    const pools = (await db.getMany(ids.map((id) => poolKey(chainId, id)))).filter(
      (pool): pool is IndexedPool => pool !== undefined,
    );
    cache?.pools.set(`${chainId}|${token}`, pools);
    return pools;
  },

  /** The last block at or before `seconds` (unix), or undefined if none is indexed. */
  blockAtOrBefore: async (chainId: number, seconds: number): Promise<number | undefined> => {
    for await (const value of db.values({
      gte: timeBlockPrefix(chainId),
      lte: timeBlockBound(chainId, seconds),
      reverse: true,
      limit: 1,
    })) {
      return value as number;
    }
    return undefined;
  },

  blockTime: async (chainId: number, number: number): Promise<number | undefined> =>
    (await db.get(blockTimeKey(chainId, number))) as number | undefined,

  /** The last block applied for the chain. */
  checkpoint: async (chainId: number): Promise<IndexCheckpoint | undefined> => {
    const cached = cache?.checkpoints.get(chainId);
    if (cached !== undefined) return cached;
    const stored = (await db.get(indexCheckpointKey(chainId))) as IndexCheckpoint | undefined;
    if (stored !== undefined) cache?.checkpoints.set(chainId, stored);
    return stored;
  },
});

export type IndexReader = ReturnType<typeof makeIndexReader>;

/** The process's index reader, over its LevelDB and its IndexCache. */
export class Index extends Context.Tag("app/indexer/Index")<
  Index,
  { readonly reader: IndexReader; readonly cache: IndexCache }
>() {}

export const layer: Layer.Layer<Index, never, Level> = Layer.effect(
  Index,
  Effect.map(Level, (db) => {
    const cache = new IndexCache();
    return { reader: makeIndexReader(db, cache), cache };
  }),
);
