import { Context, Effect, Layer, Runtime } from "effect";
import { ChainClients } from "../../chains/ChainClients.js";
import { Chains } from "../../chains/Chains.js";
import { Index } from "../../indexer/IndexReader.js";
import { IngestStatusBook } from "../../ingest/IngestStatusBook.js";
import { Level } from "../../storage/Level.js";
import { makeRegistryBackfill, type RegistryBackfill } from "../registryBackfill.js";

/** The process's registry backfill (registryBackfill.ts), over its index and chain clients. */
export class RegistryBackfills extends Context.Tag("app/discovery/RegistryBackfills")<
  RegistryBackfills,
  RegistryBackfill
>() {}

/**
 * Builds the backfill and starts it for every chain (each waits until where its index starts and
 * what its node keeps are known); stops it when the layer's scope closes. Every API process keeps
 * its own index, so each runs its own.
 */
export const layer: Layer.Layer<
  RegistryBackfills,
  never,
  Level | Index | ChainClients | IngestStatusBook | Chains
> = Layer.scoped(
  RegistryBackfills,
  Effect.gen(function* () {
    const db = yield* Level;
    const index = yield* Index;
    const clients = yield* ChainClients;
    const ingest = yield* IngestStatusBook;
    const registry = yield* Chains;
    const runtime = yield* Effect.runtime<never>();
    const backfill = makeRegistryBackfill({
      db,
      cache: index.cache,
      rpc: (chainId) => clients.get(chainId),
      indexedFrom: (chainId) => ingest.get(chainId)?.indexed_from,
      now: () => Date.now(),
      warn: (message, chainId) =>
        Runtime.runFork(runtime)(Effect.logWarning(message).pipe(Effect.annotateLogs({ chain: chainId }))),
    });
    for (const chain of registry.chains) backfill.start(chain);
    // The step under way is written before the index closes, unless it takes long (a slow node):
    // an unwritten step is read again after the restart.
    yield* Effect.addFinalizer(() =>
      Effect.promise(() => backfill.stop()).pipe(Effect.timeout("3 seconds"), Effect.ignore),
    );
    return backfill;
  }),
);
