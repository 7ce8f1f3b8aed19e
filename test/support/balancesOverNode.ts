import { Effect, Layer } from "effect";
import * as Balances from "../../src/balances/Balances.js";
import { ChainClients } from "../../src/chains/ChainClients.js";
import type { ChainRpc } from "../../src/chains/rpc/ChainRpc.js";
import * as IndexReader from "../../src/indexer/IndexReader.js";
import { layerMemory } from "../../src/storage/Level.js";
import { noDiscovery } from "./noDiscovery.js";

const MB = 1024 * 1024;

/**
 * The balances service for unit tests: every chain read through `client` (a fake node), an index in
 * memory (Level and Index provided too, for the test to write), no discovery, a cache of 100 reads.
 */
export const balancesOverNode = (client: ChainRpc) =>
  Balances.layer({
    publicUrl: "http://127.0.0.1",
    cacheEntries: 100,
    cacheBytes: MB,
    priceHistoryCacheBytes: MB,
    chainReadMs: 5_000,
    discoveryWaitMs: 0,
  }).pipe(
    Layer.provide(noDiscovery),
    Layer.provideMerge(IndexReader.layer({ cacheBytes: MB })),
    Layer.provideMerge(layerMemory),
    Layer.provide(
      Layer.succeed(ChainClients, {
        get: () => client,
        all: () => [client],
        watch: () => Effect.void,
        capabilities: () => Effect.succeed({ complete: true }),
      }),
    ),
  );
