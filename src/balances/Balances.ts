import { Context, Effect, Layer, Option } from "effect";
import { makeBlockTimeFinder } from "../chains/blockTimeFinder.js";
import { ChainClients } from "../chains/ChainClients.js";
import type { ChainConfig } from "../chains/ChainsConfig.js";
import { makePastBlocks, type PastBlock } from "../chains/pastBlocks.js";
import { type BlockRef, blockKey, headOfNodes, readEachChain } from "../chains/readEachChain.js";
import type { InvalidRequest, Unavailable } from "../contracts/ApiError.js";
import type { Warning } from "../contracts/Common.js";
import { Discovery } from "../discovery/Discovery.js";
import type { DiscoveryProgress } from "../discovery/DiscoveryProgress.js";
import { settleForRequest } from "../discovery/settleForRequest.js";
import { Index, type WalletToken } from "../indexer/IndexReader.js";
import { makeReadCache } from "../lib/readCache.js";
import { Metrics } from "../metrics/Metrics.js";
import { FactoryPools } from "../pricing/FactoryPools.js";
import type { ChainHoldings, Holding, HoldingsSnapshot } from "./ChainHoldings.js";
import type { ResponseEntry } from "./decorateEntry.js";
import { makeHistoricalPrices } from "./historicalPrices.js";
import { readChainHoldings } from "./readChainHoldings.js";
import { makeShapedPages, type ShapedPages } from "./shapedPages.js";
import { type EntryOptions, makeEntryShaper } from "./shapeEntries.js";
import { type BalanceEntry, compareEntries, SPAM_LIQUIDITY_USD } from "./toBalanceEntry.js";

export type { HoldingsSnapshot } from "./ChainHoldings.js";
export type { EntryOptions } from "./shapeEntries.js";

export interface SnapshotOptions {
  /**
   * Blocks to read at, by chain id (a cursor's, or `block_number`'s); the indexed head otherwise.
   * A pinned chain is read at exactly that block, and a node that no longer keeps its state makes
   * the request a 400 naming the oldest block it keeps.
   */
  readonly pinned?: ReadonlyMap<number, BlockRef>;
  /** Who chose the pinned blocks: a listing's `offset` makes a pruned block a STALE_OFFSET instead. */
  readonly pinnedBy?: "block_number" | "offset";
  /** The single-token route: read only this token (or `native`) on this chain, kept at amount 0. */
  readonly only?: { readonly chainId: number; readonly token: string };
}

export type { ResponseEntry } from "./decorateEntry.js";

/**
 * The balances pipeline: which tokens to read (the wallet's touched tokens from
 * the index, plus the chain's well-known tokens), one multicall per chain at the
 * block the index has reached, prices by the most liquid route, and the entry
 * shapes of spec 2.2. Reads are cached per (wallet, chain, block) and shared by
 * concurrent identical requests; a new indexed block changes the key, so the
 * cache follows the chain and never serves a balance older than the index.
 */
export class Balances extends Context.Tag("app/balances/Balances")<
  Balances,
  {
    /** Reads every chain (at `pinned` blocks when given, else at each chain's indexed head). */
    readonly snapshot: (
      wallet: string,
      chains: ReadonlyArray<ChainConfig>,
      options?: SnapshotOptions,
    ) => Effect.Effect<HoldingsSnapshot, Unavailable | InvalidRequest>;
    /** The block at a height a request asked for (`block_number`), or why it cannot be read (pastBlocks.ts). */
    readonly pastBlock: (
      chain: ChainConfig,
      number: number,
    ) => Effect.Effect<PastBlock, InvalidRequest | Unavailable>;
    /** Shapes holdings as response entries, with historical prices and metadata as asked. */
    readonly entries: (
      items: ReadonlyArray<{ readonly chain: ChainConfig; readonly holding: Holding }>,
      options: EntryOptions,
    ) => Effect.Effect<{
      readonly entries: ReadonlyArray<ResponseEntry>;
      readonly warnings: ReadonlyArray<Warning>;
    }>;
    /** Response pages already shaped, by snapshot and query (see shapedPages.ts). */
    readonly pages: ShapedPages;
  }
>() {}

export const isSpam = (entry: BalanceEntry) =>
  entry.address !== "native" && entry.pool_size !== undefined && entry.pool_size < SPAM_LIQUIDITY_USD;

export const sortEntries = (entries: ReadonlyArray<BalanceEntry>) => [...entries].sort(compareEntries);

/** What the balances service is given (the API role reads them from the operator's settings). */
export interface BalancesSettings {
  /** Base URL of logo and docs links. */
  readonly publicUrl: string;
  /** Chain reads kept in memory (0 turns the cache off) and their approximate byte budget. */
  readonly cacheEntries: number;
  readonly cacheBytes: number;
  /** Memory for past prices (PRICE_HISTORY_CACHE_MB). */
  readonly priceHistoryCacheBytes: number;
  /** How long one chain's read may take within a request (chainReadDeadline). */
  readonly chainReadMs: number;
  /** How long a wallet's first request waits for its discovery sweep (at most half of `chainReadMs`). */
  readonly discoveryWaitMs: number;
}

export const layer = (settings: BalancesSettings) =>
  Layer.effect(
    Balances,
    Effect.gen(function* () {
      const clients = yield* ChainClients;
      const index = (yield* Index).reader;
      const discovery = yield* Discovery;
      // Pools the index lacks (history before its start) are found by asking the factories.
      const pools = Option.getOrUndefined(yield* Effect.serviceOption(FactoryPools));
      // Reads a client waits for: each chain's within its share of the request's time.
      const deadlineMs = settings.chainReadMs;
      const clientOf = (chainId: number) => clients.get(chainId)?.forRequests(deadlineMs);
      // A first request waits this long for the wallet's discovery sweep, within its own time.
      const discoveryWaitMs = Math.min(settings.discoveryWaitMs, Math.floor(deadlineMs / 2));
      // Past blocks the index does not hold are found in the nodes' headers, through this cache.
      const pastBlocks = makeBlockTimeFinder();
      // Heights asked for by `block_number`, with the final ones' headers kept.
      const askedBlocks = makePastBlocks({
        nodes: clientOf,
        indexedHead: async (chainId) => (await index.checkpoint(chainId))?.number,
      });
      const history = makeHistoricalPrices(
        index,
        clientOf,
        settings.priceHistoryCacheBytes,
        pastBlocks,
        pools,
      );
      // Bounded by bytes too: a 1,200-token wallet weighs as much as hundreds of small ones.
      const cache = makeReadCache<ChainHoldings>(settings.cacheEntries, settings.cacheBytes);
      // Pages of cached reads: as many as reads, in a quarter of their budget (a page is a few KB).
      const pages = makeShapedPages(settings.cacheEntries, settings.cacheBytes / 4);
      const metrics = yield* Effect.serviceOption(Metrics);
      if (Option.isSome(metrics)) {
        metrics.value.watchCache("balances_reads", cache.lookups);
        metrics.value.watchCache("balances_pages", pages.lookups);
        metrics.value.watchCache("historical_prices", history.lookups);
        metrics.value.watchCache("block_at_time", pastBlocks.lookups);
        metrics.value.watchCache("balances_final_blocks", askedBlocks.lookups);
      }

      /**
       * The wallet's ERC-20s on the chain: `early`, read when discovery stood at `version`, with what
       * discovery wrote since (read again when that is not known exactly) and what a sweep found that
       * LevelDB is still writing.
       */
      const touchedSince = async (
        wallet: string,
        chainId: number,
        early: Promise<ReadonlyArray<WalletToken>>,
        version: number,
      ): Promise<ReadonlyArray<string>> => {
        const added = discovery.tokensSince(chainId, wallet, version);
        const read = added === undefined ? await index.touchedTokens(wallet, chainId) : await early;
        const tokens = new Set(read.filter((t) => t.standard === "erc20").map((t) => t.token));
        for (const token of added ?? []) tokens.add(token);
        for (const token of discovery.tokensPending(chainId, wallet)) tokens.add(token);
        return [...tokens];
      };

      const readChain = async (
        wallet: string,
        chain: ChainConfig,
        at: BlockRef,
        keepToken: string | undefined,
        pinned: boolean,
      ): Promise<{ holdings: ChainHoldings; progress: DiscoveryProgress }> => {
        // The wallet's tokens here are read while its discovery sweeps (a LevelDB read beside the
        // sweep's eth_call, not after it), and completed with what the sweep then wrote.
        const versionBefore = discovery.version(chain.chain_id, wallet);
        const early = keepToken === undefined ? index.touchedTokens(wallet, chain.chain_id) : undefined;
        early?.catch(() => undefined);
        // The single-token route reads the token it names: it needs no discovery.
        const progress: DiscoveryProgress =
          keepToken === undefined
            ? await settleForRequest(
                discovery,
                chain,
                wallet,
                clientOf(chain.chain_id),
                discoveryWaitMs,
                "tokens",
              )
            : { state: "not_needed" };
        // What discovery writes for the wallet is a new key: a cached read never hides it.
        const version = keepToken === undefined ? discovery.version(chain.chain_id, wallet) : 0;
        // A pinned block stays the key's block while the chain moves on: what the index learns of
        // the wallet meanwhile (a token it touches) is a new key, as a new block is for reads at the head.
        const known = pinned && early !== undefined ? (await early.catch(() => [])).length : "";
        const key = `${wallet}|${chain.chain_id}|${blockKey(at)}|${version}|${keepToken ?? ""}|${known}`;
        const client = clientOf(chain.chain_id);
        const holdings = await cache.through(key, async () => {
          if (client === undefined) throw new Error("no RPC client for this chain");
          // The single-token route reads its one token (native comes with every read), not the
          // whole wallet: 1,200 reads and a 1,200-entry cache value for one answer were a gift to
          // anyone who wants to load the service.
          const tokens =
            early !== undefined
              ? [...(await touchedSince(wallet, chain.chain_id, early, versionBefore)), ...chain.tokens]
              : keepToken === "native" || keepToken === undefined
                ? []
                : [keepToken];
          return readChainHoldings(client, index, {
            chain,
            wallet,
            block: at,
            tokens,
            pools,
            ...(keepToken === undefined ? {} : { keepZero: new Set([keepToken]) }),
            ...(keepToken === undefined || keepToken === "native" ? {} : { classify: keepToken }),
          });
        });
        return { holdings, progress };
      };

      const snapshot = (wallet: string, chains: ReadonlyArray<ChainConfig>, options: SnapshotOptions = {}) =>
        readEachChain({
          chains,
          blockOf: async (chain) =>
            options.pinned?.get(chain.chain_id) ?? (await index.checkpoint(chain.chain_id)),
          read: (chain, block) =>
            readChain(
              wallet,
              chain,
              block,
              options.only?.chainId === chain.chain_id ? options.only.token : undefined,
              options.pinned?.has(chain.chain_id) === true,
            ),
          what: "Balances",
          deadlineMs,
          // A page of a kept snapshot stays at its block; a fresh read follows a node that fell back.
          nodeHead: (chain) =>
            options.pinned?.has(chain.chain_id) === true
              ? Promise.resolve(undefined)
              : headOfNodes(clientOf(chain.chain_id)),
          refuse: askedBlocks.refusal(options.pinned, options.pinnedBy),
        }).pipe(
          Effect.map(
            ({ reads, failures }): HoldingsSnapshot => ({
              byChain: reads.map(({ chain, value }) => ({
                chain,
                holdings: value.holdings,
                progress: value.progress,
              })),
              failures,
            }),
          ),
        );

      const entries = makeEntryShaper({
        history,
        stateFrom: (chainId) => clients.get(chainId)?.capabilities().stateFrom,
        publicUrl: settings.publicUrl,
      });

      return { snapshot, entries, pages, pastBlock: askedBlocks.at } as const;
    }),
  );
