import { Context, Effect, Layer } from "effect";
import type { Lru } from "../lib/Lru.js";
import { type Db, Level } from "../storage/Level.js";
import { IndexCache, walletCacheKey } from "./IndexCache.js";
import type {
  IndexCheckpoint,
  IndexedPool,
  LendingToken,
  NftRecord,
  RestakeDeposit,
  TokenMetadata,
  TouchedToken,
  VaultProbe,
  WalletLendingMarket,
  WalletNft,
  WalletPositionNft,
  WalletRestakeDeposit,
  WalletToken,
  YieldSplitToken,
} from "./IndexRecords.js";
import {
  blockTimeKey,
  indexCheckpointKey,
  lendingParticipationPrefix,
  lendingTokenKey,
  nftKey,
  poolKey,
  restakeDepositPrefix,
  timeBlockBound,
  timeBlockPrefix,
  tokenMetadataKey,
  tokenPoolPrefix,
  vaultProbeKey,
  walletNftPrefix,
  walletTokenChainPrefix,
  walletTokenPrefix,
  yieldSplitMarketKey,
  yieldSplitTokenKey,
} from "./indexKeys.js";

export type {
  WalletLendingMarket,
  WalletPositionNft,
  WalletRestakeDeposit,
  WalletToken,
} from "./IndexRecords.js";

/**
 * Point lookups through a cache: hits from memory, the rest in one `getMany`, remembered (a
 * miss as null) unless the indexer wrote a batch meanwhile. Answers are collected here, not
 * read back from the cache, which may evict some on the way.
 */
const throughCache = async <V>(
  keys: ReadonlyArray<string>,
  cacheKey: (key: string) => string,
  read: (missing: ReadonlyArray<string>) => Promise<ReadonlyArray<V | undefined>>,
  cache: Lru<string, V | null> | undefined,
  index: IndexCache | undefined,
): Promise<ReadonlyArray<V | undefined>> => {
  const found = new Map<string, V | null>();
  for (const key of keys) {
    const hit = cache?.get(cacheKey(key));
    if (hit !== undefined) found.set(key, hit);
  }
  const missing = keys.filter((key) => !found.has(key));
  if (missing.length > 0) {
    const before = index?.batches ?? 0;
    const values = await read(missing);
    const remember = index?.unchangedSince(before) ?? true;
    missing.forEach((key, i) => {
      found.set(key, values[i] ?? null);
      if (remember) cache?.set(cacheKey(key), values[i] ?? null);
    });
  }
  return keys.map((key) => found.get(key) ?? undefined);
};

/**
 * Read side of the indexer's views, for the services that answer requests.
 * With a cache (the process's IndexCache, kept current by its indexer) the
 * request path mostly reads memory; without one, every call reads LevelDB.
 */
export const makeIndexReader = (db: Db, cache?: IndexCache) => ({
  /**
   * Every (chain, token) the wallet has touched, ascending by chain then token; with `chainId`,
   * those of that chain only (a request reads each chain apart, as its discovery finishes there).
   */
  touchedTokens: async (wallet: string, chainId?: number): Promise<ReadonlyArray<WalletToken>> => {
    const cacheKey = walletCacheKey(wallet, chainId);
    const cached = cache?.wallets.get(cacheKey);
    if (cached !== undefined) return cached;
    const before = cache?.batches ?? 0;
    const walletPrefix = walletTokenPrefix(wallet);
    const prefix = chainId === undefined ? walletPrefix : walletTokenChainPrefix(wallet, chainId);
    const out: Array<WalletToken> = [];
    for await (const [key, value] of db.iterator({ gte: prefix, lt: `${prefix}~` })) {
      const [chain, token] = (key as string).slice(walletPrefix.length).split("!");
      out.push({ ...(value as TouchedToken), chain_id: Number(chain), token: token! });
    }
    if (cache?.unchangedSince(before)) cache.wallets.set(cacheKey, out);
    return out;
  },

  /** Every position NFT the wallet holds now, ascending by chain, manager and token id. */
  positionNfts: async (wallet: string): Promise<ReadonlyArray<WalletPositionNft>> => {
    const cached = cache?.nfts.get(wallet);
    if (cached !== undefined) return cached;
    const before = cache?.batches ?? 0;
    const prefix = walletNftPrefix(wallet);
    const held: Array<{ chain_id: number; manager: string; token_id: bigint; record: WalletNft }> = [];
    for await (const [key, value] of db.iterator({ gte: prefix, lt: `${prefix}~` })) {
      const [chain, manager, tokenId] = (key as string).slice(prefix.length).split("!");
      held.push({
        chain_id: Number(chain),
        manager: manager!,
        token_id: BigInt(`0x${tokenId}`),
        record: value as WalletNft,
      });
    }
    const minted = (await db.getMany(
      held.map((h) => nftKey(h.chain_id, h.manager, h.token_id)),
    )) as ReadonlyArray<NftRecord | undefined>;
    const out = held.map((h, i) => ({
      ...h.record,
      chain_id: h.chain_id,
      manager: h.manager,
      token_id: h.token_id,
      minted: minted[i],
    }));
    if (cache?.unchangedSince(before)) cache.nfts.set(wallet, out);
    return out;
  },

  /** Pools by address (V4: pool id), undefined where the index has none. */
  pools: (chainId: number, ids: ReadonlyArray<string>): Promise<ReadonlyArray<IndexedPool | undefined>> =>
    throughCache(
      ids,
      (id) => `${chainId}|${id}`,
      (missing) =>
        db.getMany(missing.map((id) => poolKey(chainId, id))) as Promise<
          ReadonlyArray<IndexedPool | undefined>
        >,
      cache?.poolsById,
      cache,
    ),

  /** Tokens that carry lending positions, by address; undefined where a token is not one. */
  lendingTokens: (
    chainId: number,
    tokens: ReadonlyArray<string>,
  ): Promise<ReadonlyArray<LendingToken | undefined>> =>
    throughCache(
      tokens,
      (token) => `${chainId}|${token}`,
      (missing) =>
        db.getMany(missing.map((token) => lendingTokenKey(chainId, token))) as Promise<
          ReadonlyArray<LendingToken | undefined>
        >,
      cache?.lending,
      cache,
    ),

  /** Lending markets the wallet is in without a token of its own showing it, ascending by chain and market. */
  lendingMarkets: async (wallet: string): Promise<ReadonlyArray<WalletLendingMarket>> => {
    const cached = cache?.markets.get(wallet);
    if (cached !== undefined) return cached;
    const before = cache?.batches ?? 0;
    const prefix = lendingParticipationPrefix(wallet);
    const out: Array<WalletLendingMarket> = [];
    for await (const key of db.keys({ gte: prefix, lt: `${prefix}~` })) {
      const [chain, market, asset] = (key as string).slice(prefix.length).split("!");
      out.push({ chain_id: Number(chain), market: market!, asset: asset === "-" ? undefined : asset });
    }
    if (cache?.unchangedSince(before)) cache.markets.set(wallet, out);
    return out;
  },

  /** ERC-4626 probe results by token; undefined where a token was never probed. */
  vaultProbes: (
    chainId: number,
    tokens: ReadonlyArray<string>,
  ): Promise<ReadonlyArray<VaultProbe | undefined>> =>
    throughCache(
      tokens,
      (token) => `${chainId}|${token}`,
      (missing) =>
        db.getMany(missing.map((token) => vaultProbeKey(chainId, token))) as Promise<
          ReadonlyArray<VaultProbe | undefined>
        >,
      cache?.vaults,
      cache,
    ),

  /** Yield-splitting tokens (PT, YT, market) of registry factories, by address; undefined where a token is not one. */
  yieldSplitTokens: (
    chainId: number,
    tokens: ReadonlyArray<string>,
  ): Promise<ReadonlyArray<YieldSplitToken | undefined>> =>
    tokens.length === 0
      ? Promise.resolve([])
      : (db.getMany(tokens.map((token) => yieldSplitTokenKey(chainId, token))) as Promise<
          ReadonlyArray<YieldSplitToken | undefined>
        >),

  /** The first market of each principal token; undefined where a PT has none. */
  yieldSplitMarkets: (
    chainId: number,
    pts: ReadonlyArray<string>,
  ): Promise<ReadonlyArray<string | undefined>> =>
    pts.length === 0
      ? Promise.resolve([])
      : (db.getMany(pts.map((pt) => yieldSplitMarketKey(chainId, pt))) as Promise<
          ReadonlyArray<string | undefined>
        >),

  /** Restaking deposits the wallet made into registry StrategyManagers, ascending by chain, manager and strategy. */
  restakeDeposits: async (wallet: string): Promise<ReadonlyArray<WalletRestakeDeposit>> => {
    const cached = cache?.restakes.get(wallet);
    if (cached !== undefined) return cached;
    const before = cache?.batches ?? 0;
    const prefix = restakeDepositPrefix(wallet);
    const out: Array<WalletRestakeDeposit> = [];
    for await (const [key, value] of db.iterator({ gte: prefix, lt: `${prefix}~` })) {
      const [chain, manager, strategy] = (key as string).slice(prefix.length).split("!");
      out.push({
        ...(value as RestakeDeposit),
        chain_id: Number(chain),
        manager: manager!,
        strategy: strategy!,
      });
    }
    if (cache?.unchangedSince(before)) cache.restakes.set(wallet, out);
    return out;
  },

  tokenMetadata: async (
    chainId: number,
    tokens: ReadonlyArray<string>,
  ): Promise<ReadonlyArray<TokenMetadata | undefined>> => {
    const key = (token: string) => `${chainId}|${token}`;
    // Answers are collected here, not read back from the cache, which may evict some on the way.
    const found = new Map<string, TokenMetadata | null>();
    for (const token of tokens) {
      const hit = cache?.metadata.get(key(token));
      if (hit !== undefined) found.set(token, hit);
    }
    const missing = tokens.filter((token) => !found.has(token));
    if (missing.length > 0) {
      const before = cache?.batches ?? 0;
      const read = (await db.getMany(
        missing.map((token) => tokenMetadataKey(chainId, token)),
      )) as ReadonlyArray<TokenMetadata | undefined>;
      missing.forEach((token, i) => {
        found.set(token, read[i] ?? null);
        if (cache?.unchangedSince(before)) cache.metadata.set(key(token), read[i] ?? null);
      });
    }
    return tokens.map((token) => found.get(token) ?? undefined);
  },

  /** Pools (of configured factories) that hold `token`. */
  poolsForToken: async (chainId: number, token: string): Promise<ReadonlyArray<IndexedPool>> => {
    const cached = cache?.pools.get(`${chainId}|${token}`);
    if (cached !== undefined) return cached;
    const before = cache?.batches ?? 0;
    const prefix = tokenPoolPrefix(chainId, token);
    const ids: Array<string> = [];
    for await (const value of db.values({ gte: prefix, lt: `${prefix}~` })) ids.push(value as string);
    const pools = (await db.getMany(ids.map((id) => poolKey(chainId, id)))).filter(
      (pool): pool is IndexedPool => pool !== undefined,
    );
    if (cache?.unchangedSince(before)) cache.pools.set(`${chainId}|${token}`, pools);
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
    const before = cache?.batches ?? 0;
    const stored = (await db.get(indexCheckpointKey(chainId))) as IndexCheckpoint | undefined;
    if (stored !== undefined && cache?.unchangedSince(before)) cache.checkpoints.set(chainId, stored);
    return stored;
  },
});

export type IndexReader = ReturnType<typeof makeIndexReader>;

/** The process's index reader, over its LevelDB and its IndexCache. */
export class Index extends Context.Tag("app/indexer/Index")<
  Index,
  { readonly reader: IndexReader; readonly cache: IndexCache }
>() {}

/** What the index reader is given: how much memory its cache may hold (INDEX_CACHE_MB). */
export interface IndexReaderSettings {
  readonly cacheBytes: number;
}

export const layer = (settings: IndexReaderSettings): Layer.Layer<Index, never, Level> =>
  Layer.effect(
    Index,
    Effect.gen(function* () {
      const db = yield* Level;
      const cache = new IndexCache(settings.cacheBytes);
      return { reader: makeIndexReader(db, cache), cache };
    }),
  );
