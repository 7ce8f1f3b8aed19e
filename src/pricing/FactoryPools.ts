import { Context, Effect, Layer, Runtime } from "effect";
import { ChainClients } from "../chains/ChainClients.js";
import { Index } from "../indexer/IndexReader.js";
import { IngestStatusBook } from "../ingest/IngestStatusBook.js";
import { Level } from "../storage/Level.js";
import { makePoolLookup, type PoolLookup } from "./poolLookup.js";

/**
 * The process's factory pool lookup (poolLookup.ts): one per process, so concurrent requests
 * share its in-flight lookups and its memory of markers, over the process's LevelDB and index
 * memory (which its writes keep current).
 */
export class FactoryPools extends Context.Tag("app/pricing/FactoryPools")<FactoryPools, PoolLookup>() {}

/** What the lookup is given: a chain read's share of a request (readEachChain `chainReadDeadline`). */
export interface FactoryPoolsSettings {
  readonly chainReadMs: number;
}

export const layer = (
  settings: FactoryPoolsSettings,
): Layer.Layer<FactoryPools, never, Level | Index | ChainClients | IngestStatusBook> =>
  Layer.effect(
    FactoryPools,
    Effect.gen(function* () {
      const db = yield* Level;
      const index = yield* Index;
      const clients = yield* ChainClients;
      const ingest = yield* IngestStatusBook;
      const runtime = yield* Effect.runtime<never>();
      // Requests wait for lookups: each call gives up within a chain read's share of the request.
      const budgetMs = settings.chainReadMs;
      return makePoolLookup({
        db,
        cache: index.cache,
        rpc: (chainId) => clients.get(chainId)?.forRequests(budgetMs),
        indexedFrom: (chainId) => ingest.get(chainId)?.indexed_from,
        warn: (message, chainId) =>
          Runtime.runFork(runtime)(Effect.logWarning(message).pipe(Effect.annotateLogs({ chain: chainId }))),
      });
    }),
  );
