import { Context, Effect, Layer, Option } from "effect";
import { ChainClients } from "../chains/ChainClients.js";
import type { ChainConfig } from "../chains/ChainsConfig.js";
import {
  type BlockRef,
  blockKey,
  type EachChainRead,
  headOfNodes,
  readEachChain,
} from "../chains/readEachChain.js";
import type { Unavailable } from "../contracts/ApiError.js";
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
    /** Reads every chain; a chain that fails is reported, not fatal, unless all fail (503). */
    readonly get: (
      wallet: string,
      chains: ReadonlyArray<ChainConfig>,
    ) => Effect.Effect<PositionsSnapshot, Unavailable>;
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
      const metrics = yield* Effect.serviceOption(Metrics);
      if (Option.isSome(metrics)) metrics.value.watchCache("positions_reads", cache.lookups);

      /**
       * The chain's positions, and how far the wallet's discovery was when they were read: taken
       * before the read, so an answer never says complete about writes its read did not see.
       */
      const read = async (wallet: string, chain: ChainConfig, at: BlockRef) => {
        const progress = await settleForRequest(
          discovery,
          chain,
          wallet,
          clients.get(chain.chain_id)?.forRequests(settings.chainReadMs),
          waitMs,
          "positions",
        );
        // What discovery writes for the wallet is a new key: a cached read never hides it.
        const version = discovery.version(chain.chain_id, wallet);
        const positions = await cache.through(
          `${wallet}|${chain.chain_id}|${blockKey(at)}|${version}`,
          async () => {
            const client = clients.get(chain.chain_id)?.forRequests(settings.chainReadMs);
            if (client === undefined) throw new Error("no RPC client for this chain");
            return readChainPositions(client, index, {
              chain,
              wallet,
              block: at,
              publicUrl: settings.publicUrl,
              pools,
              disowned,
            });
          },
        );
        return { positions, progress };
      };

      const get = (wallet: string, chains: ReadonlyArray<ChainConfig>) =>
        readEachChain({
          chains,
          blockOf: (chain) => index.checkpoint(chain.chain_id),
          read: (chain, block) => read(wallet, chain, block),
          what: "Positions",
          deadlineMs: settings.chainReadMs,
          nodeHead: (chain) => headOfNodes(clients.get(chain.chain_id)?.forRequests(settings.chainReadMs)),
        }).pipe(Effect.withSpan("Positions.get", { attributes: { chains: chains.length } }));

      return { get } as const;
    }),
  );
