import { Context, Effect, Layer, Option } from "effect";
import { Chains } from "../chains/Chains.js";
import type { Lru } from "../lib/Lru.js";
import type { KeyPresence } from "../storage/KeyPresence.js";
import { type Db, KeyPresences, Level } from "../storage/Level.js";
import { DisownedNfts } from "./DisownedNfts.js";
import { IndexCache, walletCacheKey } from "./IndexCache.js";
import { IndexedWallets } from "./IndexedWallets.js";
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
  walletHeldNftPrefix,
  walletNftPrefix,
  walletTokenChainPrefix,
  walletTokenPrefix,
  walletTokenView,
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
 * A read through a cache that keeps whole answers (a wallet's tokens, a token's pools): the
 * remembered answer, or `read`'s, remembered unless the indexer wrote a batch meanwhile (a read
 * that began before a batch may return what the batch replaced).
 */
const readThroughCache = async <V>(
  cacheKey: string,
  read: () => Promise<V>,
  cache: Lru<string, V> | undefined,
  index: IndexCache | undefined,
): Promise<V> => {
  const cached = cache?.get(cacheKey);
  if (cached !== undefined) return cached;
  const before = index?.batches ?? 0;
  const value = await read();
  if (index?.unchangedSince(before)) cache?.set(cacheKey, value);
  return value;
};

/** Every entry under `prefix`, in key order: the key's parts after `prefix` (split at `!`) and the value. */
const entriesUnder = async (
  db: Db,
  prefix: string,
  within = prefix,
): Promise<ReadonlyArray<{ readonly parts: ReadonlyArray<string>; readonly value: unknown }>> => {
  const out: Array<{ parts: ReadonlyArray<string>; value: unknown }> = [];
  for await (const [key, value] of db.iterator({ gte: within, lt: `${within}~` }))
    out.push({ parts: (key as string).slice(prefix.length).split("!"), value });
  return out;
};

/** The position NFTs recorded under a wallet's `prefix` (`wn!` or `wh!`), with where each was minted. */
const walletNftsUnder = async (db: Db, prefix: string): Promise<ReadonlyArray<WalletPositionNft>> => {
  const held = (await entriesUnder(db, prefix)).map(({ parts: [chain, manager, tokenId], value }) => ({
    chain_id: Number(chain),
    manager: manager!,
    token_id: BigInt(`0x${tokenId}`),
    record: value as WalletNft,
  }));
  const minted = (await db.getMany(
    held.map((h) => nftKey(h.chain_id, h.manager, h.token_id)),
  )) as ReadonlyArray<NftRecord | undefined>;
  return held.map((h, i) => ({
    ...h.record,
    chain_id: h.chain_id,
    manager: h.manager,
    token_id: h.token_id,
    minted: minted[i],
  }));
};

/**
 * Read side of the indexer's views, for the services that answer requests.
 * With a cache (the process's IndexCache, kept current by its indexer) the
 * request path mostly reads memory; without one, every call reads LevelDB.
 * Long only as a record of one short reader per view, which share `db` and `cache`.
 */
export const makeIndexReader = (
  db: Db,
  cache?: IndexCache,
  walletTokens?: Pick<KeyPresence, "rulesOutGroup">,
) => ({
  /**
   * Every (chain, token) the wallet has touched, ascending by chain then token; with `chainId`,
   * those of that chain only (a request reads each chain apart, as its discovery finishes there).
   * A wallet the index has nothing of on the chain (most wallets on most chains, and every wallet
   * asked about for the first time) is answered from the wallet-token view's key presence, without
   * the LevelDB iterator that would find nothing.
   */
  touchedTokens: (wallet: string, chainId?: number): Promise<ReadonlyArray<WalletToken>> =>
    chainId !== undefined && walletTokens?.rulesOutGroup(walletTokenChainPrefix(wallet, chainId)) === true
      ? NOTHING_TOUCHED
      : readThroughCache(
          walletCacheKey(wallet, chainId),
          async () =>
            (
              await entriesUnder(
                db,
                walletTokenPrefix(wallet),
                chainId === undefined ? walletTokenPrefix(wallet) : walletTokenChainPrefix(wallet, chainId),
              )
            ).map(({ parts: [chain, token], value }) => ({
              ...(value as TouchedToken),
              chain_id: Number(chain),
              token: token!,
            })),
          cache?.wallets,
          cache,
        ),

  /** Every position NFT the wallet holds now, ascending by chain, manager and token id. */
  positionNfts: (wallet: string): Promise<ReadonlyArray<WalletPositionNft>> =>
    readThroughCache(wallet, () => walletNftsUnder(db, walletNftPrefix(wallet)), cache?.nfts, cache),

  /**
   * Every position NFT the wallet has been seen holding, held now or not (for reads at a past
   * block): `wh!`, and `wn!` for what an index written before `wh!` existed records. Not cached:
   * past blocks are asked for far less often than the head.
   */
  positionNftsEverHeld: async (wallet: string): Promise<ReadonlyArray<WalletPositionNft>> => {
    const [ever, now] = await Promise.all([
      walletNftsUnder(db, walletHeldNftPrefix(wallet)),
      walletNftsUnder(db, walletNftPrefix(wallet)),
    ]);
    const key = (nft: WalletPositionNft) => `${nft.chain_id}|${nft.manager}|${nft.token_id}`;
    const seen = new Set(ever.map(key));
    return [...ever, ...now.filter((nft) => !seen.has(key(nft)))];
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
  lendingMarkets: (wallet: string): Promise<ReadonlyArray<WalletLendingMarket>> =>
    readThroughCache(
      wallet,
      async () =>
        (await entriesUnder(db, lendingParticipationPrefix(wallet))).map(
          ({ parts: [chain, market, asset] }) => ({
            chain_id: Number(chain),
            market: market!,
            asset: asset === "-" ? undefined : asset,
          }),
        ),
      cache?.markets,
      cache,
    ),

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
  restakeDeposits: (wallet: string): Promise<ReadonlyArray<WalletRestakeDeposit>> =>
    readThroughCache(
      wallet,
      async () =>
        (await entriesUnder(db, restakeDepositPrefix(wallet))).map(
          ({ parts: [chain, manager, strategy], value }) => ({
            ...(value as RestakeDeposit),
            chain_id: Number(chain),
            manager: manager!,
            strategy: strategy!,
          }),
        ),
      cache?.restakes,
      cache,
    ),

  tokenMetadata: (
    chainId: number,
    tokens: ReadonlyArray<string>,
  ): Promise<ReadonlyArray<TokenMetadata | undefined>> =>
    throughCache(
      tokens,
      (token) => `${chainId}|${token}`,
      (missing) =>
        db.getMany(missing.map((token) => tokenMetadataKey(chainId, token))) as Promise<
          ReadonlyArray<TokenMetadata | undefined>
        >,
      cache?.metadata,
      cache,
    ),

  /** Pools (of configured factories) that hold `token`. */
  poolsForToken: (chainId: number, token: string): Promise<ReadonlyArray<IndexedPool>> =>
    readThroughCache(
      `${chainId}|${token}`,
      async () => {
        const ids = (await entriesUnder(db, tokenPoolPrefix(chainId, token))).map(
          ({ value }) => value as string,
        );
        return (await db.getMany(ids.map((id) => poolKey(chainId, id)))).filter(
          (pool): pool is IndexedPool => pool !== undefined,
        );
      },
      cache?.pools,
      cache,
    ),

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

/** What a wallet with no token touches on a chain reads (shared: readers never change it). */
const NOTHING_TOUCHED: Promise<ReadonlyArray<WalletToken>> = Promise.resolve([]);

export type IndexReader = ReturnType<typeof makeIndexReader>;

/** The process's index reader, over its LevelDB and its IndexCache. */
export class Index extends Context.Tag("app/indexer/Index")<
  Index,
  {
    readonly reader: IndexReader;
    readonly cache: IndexCache;
    /** Stale position-NFT records reads found, for the indexer to forget (DisownedNfts). */
    readonly disowned: DisownedNfts;
    /** Whose token touches the indexer records on each chain, which discovery marks (IndexedWallets). */
    readonly wallets: IndexedWallets;
  }
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
      const chains = Option.match(yield* Effect.serviceOption(Chains), {
        onNone: () => [],
        onSome: (registry) => registry.chains,
      });
      // Read before the indexer or discovery starts: both go by the marks and modes it holds.
      const wallets = yield* Effect.promise(() => IndexedWallets.load(db, chains));
      for (const change of wallets.switched) yield* Effect.logWarning(change);
      const presences = Option.getOrUndefined(yield* Effect.serviceOption(KeyPresences));
      return {
        reader: makeIndexReader(db, cache, presences?.get(walletTokenView)),
        cache,
        disowned: new DisownedNfts(),
        wallets,
      };
    }),
  );
