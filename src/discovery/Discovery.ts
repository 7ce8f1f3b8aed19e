import { Context, Effect, Layer, Option, Runtime } from "effect";
import { ChainClients } from "../chains/ChainClients.js";
import { Chains } from "../chains/Chains.js";
import { Index } from "../indexer/IndexReader.js";
import { IngestStatusBook } from "../ingest/IngestStatusBook.js";
import { FactoryPools } from "../pricing/FactoryPools.js";
import { Level } from "../storage/Level.js";
import { makeRegistryBackfill } from "./registryBackfill.js";
import { tellRecordedMisses } from "./tellRecordedMisses.js";
import type { UniverseSources } from "./tokenUniverse.js";
import {
  DISCOVERY_DEFAULTS,
  type DiscoveryNeed,
  type DiscoverySettings,
  type Finders,
  makeWalletDiscovery,
  type WalletDiscovery,
} from "./WalletDiscovery.js";

/** The process's wallet discovery (WalletDiscovery), over its index and chain clients. */
export class Discovery extends Context.Tag("app/discovery/Discovery")<Discovery, WalletDiscovery>() {}

/**
 * Runs a request's answer about `wallet` (`need`: what it shows) while the wallet's discovery
 * work it does not need waits, so a first answer's reads have the node and this process to
 * themselves (WalletDiscovery `hold`).
 */
export const answeringAbout =
  (wallet: string, need: DiscoveryNeed) =>
  <A, E, R>(answer: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Discovery> =>
    Effect.acquireUseRelease(
      Effect.map(Discovery, (discovery) => discovery.hold(wallet, need)),
      () => answer,
      (release) => Effect.sync(release),
    );

/** What discovery is built from besides the process's services: the token lists and the position finders. */
export interface DiscoveryParts {
  readonly universe: UniverseSources;
  readonly finders: Finders;
}

/**
 * The operator's discovery settings (DISCOVERY_RESWEEP_HOURS, DISCOVERY_UNIVERSE_MAX,
 * DISCOVERY_SWEEP_QUEUE_MAX, DISCOVERY_SCAN_QUEUE_MAX).
 */
export type DiscoverySettingsIn = Pick<
  DiscoverySettings,
  "resweepMs" | "universeMax" | "sweepQueueMax" | "scanQueueMax"
>;

/** Discovery's settings: the defaults, with the operator's where they set them. */
export const discoverySettings = (settings: DiscoverySettingsIn): DiscoverySettings => ({
  ...DISCOVERY_DEFAULTS,
  resweepMs: settings.resweepMs,
  universeMax: settings.universeMax,
  sweepQueueMax: settings.sweepQueueMax,
  scanQueueMax: settings.scanQueueMax,
});

export const layer = (
  parts: DiscoveryParts,
  settings: DiscoverySettingsIn,
): Layer.Layer<Discovery, never, Level | Index | ChainClients | IngestStatusBook | Chains> =>
  Layer.scoped(
    Discovery,
    Effect.gen(function* () {
      const db = yield* Level;
      const index = yield* Index;
      const clients = yield* ChainClients;
      const ingest = yield* IngestStatusBook;
      const chains = yield* Chains;
      const runtime = yield* Effect.runtime<never>();
      const warn = (message: string, chainId: number) =>
        Runtime.runFork(runtime)(Effect.logWarning(message).pipe(Effect.annotateLogs({ chain: chainId })));
      const indexedFrom = (chainId: number) => ingest.get(chainId)?.indexed_from;
      // Each chain's registry events from before the index, read in the background from the start.
      const registry = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const backfill = makeRegistryBackfill({
            db,
            cache: index.cache,
            rpc: (chainId) => clients.get(chainId),
            indexedFrom,
            now: () => Date.now(),
            warn,
          });
          for (const chain of chains.chains) backfill.start(chain);
          return backfill;
        }),
        // Stopping waits for the step under way; a slow node must not hold up the process's end.
        (backfill) => Effect.promise(() => backfill.stop()).pipe(Effect.timeout("3 seconds"), Effect.ignore),
      );
      const pools = Option.getOrUndefined(yield* Effect.serviceOption(FactoryPools));
      const discovery = makeWalletDiscovery({
        registry,
        ...(pools === undefined
          ? {}
          : { prefetchPools: (chain, tokens, block) => void pools.ensurePools(chain, tokens, block) }),
        db,
        cache: index.cache,
        rpc: (chainId) => clients.get(chainId),
        checkpoint: (chainId) => index.reader.checkpoint(chainId),
        indexedFrom,
        wallets: index.wallets,
        universe: parts.universe,
        finders: parts.finders,
        settings: discoverySettings(settings),
        now: () => Date.now(),
        warn,
      });
      yield* Effect.promise(() => tellRecordedMisses(db, discovery));
      return discovery;
    }),
  );
