import { Context, Effect, Layer, Option } from "effect";
import { ChainClients } from "../chains/ChainClients.js";
import type { ChainConfig } from "../chains/ChainsConfig.js";
import { makePastBlocks, type PastBlock } from "../chains/pastBlocks.js";
import {
  type BlockRef,
  blockKey,
  type EachChainRead,
  headOfNodes,
  readEachChain,
} from "../chains/readEachChain.js";
import type { InvalidRequest, Unavailable } from "../contracts/ApiError.js";
import type { Position } from "../contracts/Positions.js";
import { Discovery } from "../discovery/Discovery.js";
import type { DiscoveryProgress } from "../discovery/DiscoveryProgress.js";
import { settleForRequest } from "../discovery/settleForRequest.js";
import { Index } from "../indexer/IndexReader.js";
import { makeReadCache } from "../lib/readCache.js";
import { Metrics } from "../metrics/Metrics.js";
import { FactoryPools } from "../pricing/FactoryPools.js";
import { readChainPositions } from "./readChainPositions.js";

/**
 * A wallet's positions on the chains asked for, each with how far the wallet's discovery there was
 * when they were read, and the chains that could not be read.
 */
export type PositionsSnapshot = EachChainRead<{
  readonly positions: ReadonlyArray<Position>;
  readonly progress: DiscoveryProgress;
}>;

/**
 * The positions pipeline, parallel to balances: per chain, discovery from the index, one
 * multicall at the block the index has reached (position reads and pricing together), values at
 * the pricing service's prices, shapes of spec 2.3. Reads are cached per (wallet, chain, block)
 * and shared by concurrent identical requests; a newly indexed block is a new key, so a change
 * is visible on the first request after its block is indexed.
 */
export class Positions extends Context.Tag("app/positions/Positions")<
  Positions,
  {
    /**
     * Reads every chain, at its `pinned` block when given (`block_number`), else at its indexed
     * head; a chain that fails is reported, not fatal, unless all fail (503). At a pinned block the
     * candidates include every position NFT the wallet is known to have held, and a node that no
     * longer keeps the block's state makes the request a 400 naming the oldest block it keeps.
     */
    readonly get: (
      wallet: string,
      chains: ReadonlyArray<ChainConfig>,
      options?: { readonly pinned?: ReadonlyMap<number, BlockRef> },
    ) => Effect.Effect<PositionsSnapshot, Unavailable | InvalidRequest>;
    /** The block at a height a request asked for (`block_number`), or why it cannot be read (pastBlocks.ts). */
    readonly pastBlock: (
      chain: ChainConfig,
      number: number,
    ) => Effect.Effect<PastBlock, InvalidRequest | Unavailable>;
  }
>() {}

export interface PositionsSettings {
  /** Base URL of logo links. */
  readonly publicUrl: string;
  /** Chain reads kept in memory (0 turns the cache off) and their approximate byte budget. */
  readonly cacheEntries: number;
  readonly cacheBytes: number;
  /** How long one chain's read may take within a request (chainReadDeadline). */
  readonly chainReadMs: number;
  /** How long a wallet's first request waits for its discovery sweep (at most half of `chainReadMs`). */
  readonly discoveryWaitMs: number;
}

export const layer = (
  settings: PositionsSettings,
): Layer.Layer<Positions, never, ChainClients | Index | Discovery> =>
  Layer.effect(
    Positions,
    Effect.gen(function* () {
      const clients = yield* ChainClients;
      const { reader: index, disowned } = yield* Index;
      const discovery = yield* Discovery;
      const pools = Option.getOrUndefined(yield* Effect.serviceOption(FactoryPools));
      const waitMs = Math.min(settings.discoveryWaitMs, Math.floor(settings.chainReadMs / 2));
      const cache = makeReadCache<ReadonlyArray<Position>>(settings.cacheEntries, settings.cacheBytes);
      const clientOf = (chainId: number) => clients.get(chainId)?.forRequests(settings.chainReadMs);
      // Heights asked for by `block_number`, with the final ones' headers kept.
      const askedBlocks = makePastBlocks({
        nodes: clientOf,
        indexedHead: async (chainId) => (await index.checkpoint(chainId))?.number,
      });
      const metrics = yield* Effect.serviceOption(Metrics);
      if (Option.isSome(metrics)) {
        metrics.value.watchCache("positions_reads", cache.lookups);
        metrics.value.watchCache("positions_final_blocks", askedBlocks.lookups);
      }

      /**
       * The chain's positions, and how far the wallet's discovery was when they were read: taken
       * before the read, so an answer never says complete about writes its read did not see.
       */
      const read = async (wallet: string, chain: ChainConfig, at: BlockRef, pinned: boolean) => {
        const progress = await settleForRequest(
          discovery,
          chain,
          wallet,
          clientOf(chain.chain_id),
          waitMs,
          "positions",
        );
        // What discovery writes for the wallet is a new key: a cached read never hides it.
        const version = discovery.version(chain.chain_id, wallet);
        // A pinned block stays the key's block while the chain moves on: what the index learns of
        // the wallet meanwhile (a token it touches) is a new key, as a new block is for reads at the head.
        const known = pinned ? (await index.touchedTokens(wallet, chain.chain_id)).length : "";
        const positions = await cache.through(
          `${wallet}|${chain.chain_id}|${blockKey(at)}|${version}|${known}`,
          async () => {
            const client = clientOf(chain.chain_id);
            if (client === undefined) throw new Error("no RPC client for this chain");
            return readChainPositions(client, index, {
              chain,
              wallet,
              block: at,
              publicUrl: settings.publicUrl,
              pools,
              // Owners at a past block say nothing of the index's records of today's owners.
              ...(pinned ? { past: true } : { disowned }),
            });
          },
        );
        return { positions, progress };
      };

      const get = (
        wallet: string,
        chains: ReadonlyArray<ChainConfig>,
        options: { readonly pinned?: ReadonlyMap<number, BlockRef> } = {},
      ) =>
        readEachChain({
          chains,
          blockOf: async (chain) =>
            options.pinned?.get(chain.chain_id) ?? (await index.checkpoint(chain.chain_id)),
          read: (chain, block) => read(wallet, chain, block, options.pinned?.has(chain.chain_id) === true),
          what: "Positions",
          deadlineMs: settings.chainReadMs,
          // A pinned block is read as asked or not at all: never at another block.
          nodeHead: (chain) =>
            options.pinned?.has(chain.chain_id) === true
              ? Promise.resolve(undefined)
              : headOfNodes(clientOf(chain.chain_id)),
          refuse: askedBlocks.refusal(options.pinned),
        }).pipe(Effect.withSpan("Positions.get", { attributes: { chains: chains.length } }));

      return { get, pastBlock: askedBlocks.at } as const;
    }),
  );
