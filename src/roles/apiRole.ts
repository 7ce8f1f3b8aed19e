import { jetstream } from "@nats-io/jetstream";
import { Effect, Layer } from "effect";
import { AppConfig } from "../AppConfig.js";
import { serveAdmin } from "../admin/AdminServer.js";
import { makeAdminHandlers } from "../admin/adminHandlers.js";
import { serveDeliveryAdmin } from "../admin/deliveryAdmin.js";
import * as WebhookCatalog from "../admin/WebhookCatalog.js";
import { ApiSettings } from "../api/ApiSettings.js";
import type { Route } from "../api/Handler.js";
import { serveRoutes } from "../api/HandlerRunner.js";
import { accountRoute } from "../api/handlers/accountHandler.js";
import { balancesRoute } from "../api/handlers/balancesHandler.js";
import { defiPositionsRoute } from "../api/handlers/defiPositionsHandler.js";
import { healthRoute } from "../api/handlers/healthHandler.js";
import { nativeLogoRoute, tokenLogoRoute } from "../api/handlers/logoHandler.js";
import { supportedChainsRoute } from "../api/handlers/supportedChainsHandler.js";
import { tokenBalanceRoute } from "../api/handlers/tokenBalanceHandler.js";
import { type WebhookServices, webhookRoutes } from "../api/handlers/webhooks/webhookRoutes.js";
import * as KeyDirectory from "../api/keys/KeyDirectory.js";
import type { KeyBuckets } from "../api/keys/KeyStore.js";
import { RateLimiter } from "../api/RateLimiter.js";
import * as Balances from "../balances/Balances.js";
import * as CursorSecret from "../balances/CursorSecret.js";
import * as ChainClients from "../chains/ChainClients.js";
import { Chains } from "../chains/Chains.js";
import { chainReadDeadline } from "../chains/readEachChain.js";
import * as Discovery from "../discovery/Discovery.js";
import * as WatchedWallets from "../discovery/watchedWallets.js";
import { runIndexer } from "../indexer/Indexer.js";
import * as IndexReader from "../indexer/IndexReader.js";
import { walletTokenView } from "../indexer/indexKeys.js";
import { indexFingerprint } from "../indexer/snapshot/indexFingerprint.js";
import { startFromSnapshot } from "../indexer/snapshot/restoreIndex.js";
import { runIndexSnapshots } from "../indexer/snapshot/snapshotSchedule.js";
import * as IngestStatusBook from "../ingest/IngestStatusBook.js";
import { Metrics } from "../metrics/Metrics.js";
import { watchIndexCaches } from "../metrics/watchIndexCaches.js";
import { awaitStreams, managerOf, openBucket, openObjectStore } from "../nats/JetStreamSetup.js";
import { NatsConnections } from "../nats/NatsConnections.js";
import * as Positions from "../positions/Positions.js";
import * as Presence from "../presence/Presence.js";
import * as FactoryPools from "../pricing/FactoryPools.js";
import { startupStep } from "../runtime/startupStep.js";
import { KeyPresences, Level } from "../storage/Level.js";
import { runUsageAggregator } from "../usage/UsageAggregator.js";
import * as UsageBook from "../usage/UsageBook.js";
import * as UsageRecorder from "../usage/UsageRecorder.js";
import * as DeliveryLayer from "../webhooks/delivery/DeliveryLayer.js";
import { runWebhookNotifier } from "../webhooks/notifier/runWebhookNotifier.js";
import { loadSecretKeys } from "../webhooks/secrets/secretKeyFile.js";
import { makeSecretSealer } from "../webhooks/secrets/secretSealing.js";
import * as WebhookPolicy from "../webhooks/WebhookPolicy.js";
import type { WebhookServiceSettings } from "../webhooks/WebhookServiceSettings.js";
import * as WebhookStore from "../webhooks/WebhookStore.js";
import { discoveryConfig } from "./discoveryConfig.js";
import { discoveryParts } from "./discoveryParts.js";

const MB = 1024 * 1024;

/** Everything an API handler may ask for. */
type ApiServices =
  | ApiSettings
  | Chains
  | ChainClients.ChainClients
  | UsageBook.UsageBook
  | Presence.Presence
  | KeyDirectory.KeyDirectory
  | IngestStatusBook.IngestStatusBook
  | Balances.Balances
  | Positions.Positions
  | Discovery.Discovery
  | WatchedWallets.WatchedWallets
  | CursorSecret.CursorSecret
  | Level
  | IndexReader.Index
  | WebhookServices;

/** The sealer of webhook signing secrets, with the configured key or the one under DATA_DIR. */
const secretSealer = Effect.gen(function* () {
  const config = yield* AppConfig;
  const keys = yield* Effect.tryPromise({
    try: () => loadSecretKeys(config.dataDir, config.webhookSecretKeys),
    catch: (cause) =>
      new Error(
        `Cannot load the webhook secret key: ${cause instanceof Error ? cause.message : String(cause)}`,
      ),
  });
  return makeSecretSealer(keys);
});

/**
 * The api role: binds to the streams and buckets (waiting until they are
 * provisioned), then serves every API endpoint and the admin operations in
 * their queue groups, and folds usage records into aggregates. Returns the key
 * buckets so the caller can provision keys (the devnet's demo key).
 */
export const apiRole = Effect.gen(function* () {
  const config = yield* AppConfig;
  const nc = yield* (yield* NatsConnections).get("api");
  yield* awaitStreams(nc);
  const [keys, teams, usage, presence, ingestStatus, settings, webhooks, outboxBucket, blocksBucket] =
    yield* Effect.all(
      [
        openBucket(nc, "keys"),
        openBucket(nc, "teams"),
        openBucket(nc, "usage"),
        openBucket(nc, "presence"),
        openBucket(nc, "ingest_status"),
        openBucket(nc, "settings"),
        openBucket(nc, "webhooks"),
        openBucket(nc, "webhook_outbox"),
        openBucket(nc, "webhook_blocks"),
      ],
      { concurrency: "unbounded" },
    ).pipe(startupStep("opening the API's buckets"));
  const buckets: KeyBuckets = { keys, teams };
  const jsm = yield* managerOf(nc);
  // Before anything reads the index: a worker with an empty or outrun one starts from a snapshot.
  const db = yield* Level;
  const walletTokens = (yield* KeyPresences).get(walletTokenView);
  const snapshots = yield* openObjectStore(nc, "index_snapshots").pipe(
    startupStep("opening the index snapshot store"),
  );
  const fingerprint = indexFingerprint(yield* Chains);
  yield* startFromSnapshot(db, snapshots, jsm, fingerprint).pipe(
    startupStep("starting the index from a snapshot, where it needs one"),
  );
  const webhookBuckets = { webhooks, sealer: yield* secretSealer };
  const chainReadMs = chainReadDeadline(config.requestTimeoutMs);
  const webhookSettings: WebhookServiceSettings = {
    publicUrl: config.publicUrl,
    allowHttp: config.webhookAllowHttp,
    allowedHosts: config.webhookAllowedHosts,
    maxPerTeam: config.webhookMaxPerTeam,
    maxAddresses: config.webhookMaxAddresses,
    maxAddressesPerCall: config.webhookMaxAddressesPerCall,
    retrySchedule: config.webhookRetrySchedule,
    cuPerEvent: config.webhookCuPerEvent,
    timeoutMs: config.webhookTimeoutMs,
    leaseMs: config.webhookLeaseMs,
  };
  // Balances and positions read the same wallets with the same keys: one budget setting for both.
  const walletReads = {
    publicUrl: config.publicUrl,
    cacheEntries: config.balancesCacheEntries,
    cacheBytes: config.balancesCacheMb * MB,
    chainReadMs,
    discoveryWaitMs: config.discoveryWaitMs,
  };

  const services = Layer.mergeAll(
    KeyDirectory.layer(buckets),
    UsageBook.layer(usage),
    Presence.layer(presence),
    CursorSecret.layer(settings),
    Balances.layer({ ...walletReads, priceHistoryCacheBytes: config.priceHistoryCacheMb * MB }),
    Positions.layer(walletReads),
    Layer.succeed(ApiSettings, {
      publicUrl: config.publicUrl,
      rateLimitRps: config.rateLimitRps,
      rateLimitBurst: config.rateLimitBurst,
    }),
    WebhookPolicy.layer(webhookSettings),
    WebhookStore.layer(webhookBuckets),
    // Starts an actor for every stored webhook (and its outbox queue) before any route is served.
    DeliveryLayer.layer(webhookBuckets, outboxBucket, jsm, nc, webhookSettings),
    // Every team's webhooks with address counts, for the operator list (admin.webhooks.list).
    WebhookCatalog.layer(webhookBuckets.webhooks),
    // Wallets a webhook starts watching are discovered by every API worker, this one included.
    WatchedWallets.layer(nc),
  ).pipe(
    Layer.provideMerge(
      // Discovery writes into the index and reads where each chain's index starts; it starts the
      // pool lookups of the tokens a sweep finds (FactoryPools).
      Discovery.layer(yield* discoveryParts, discoveryConfig(config)).pipe(
        Layer.provideMerge(FactoryPools.layer({ chainReadMs })),
        Layer.provideMerge(
          Layer.mergeAll(
            IndexReader.layer({ cacheBytes: config.indexCacheMb * MB }),
            UsageRecorder.layer(jetstream(nc)),
            IngestStatusBook.layer(ingestStatus),
          ),
        ),
      ),
    ),
  );
  const context = yield* Layer.build(services).pipe(
    startupStep(
      "reading keys, teams, usage, webhooks and the outbox (the API's first reads of their buckets)",
    ),
  );

  yield* Effect.gen(function* () {
    // This process answers for every chain: watch each one's endpoints from the start.
    const clients = yield* ChainClients.ChainClients;
    yield* Effect.forEach((yield* Chains).chains, (chain) => clients.watch(chain.chain_id), {
      discard: true,
    });
    const routes: ReadonlyArray<Route<ApiServices>> = [
      balancesRoute,
      tokenBalanceRoute,
      supportedChainsRoute,
      tokenLogoRoute,
      nativeLogoRoute,
      accountRoute,
      defiPositionsRoute,
      ...webhookRoutes,
      healthRoute,
    ];
    yield* serveRoutes(nc, routes, {
      limiter: new RateLimiter(),
      defaultLimit: { rate: config.rateLimitRps, burst: config.rateLimitBurst },
      // Kept replies of cached reads: as many as reads, in a quarter of their budget, like pages.
      replies: {
        entries: config.balancesCacheEntries,
        maxBytes: (config.balancesCacheMb * MB) / 4,
      },
    });
    yield* serveAdmin(nc, makeAdminHandlers(buckets));
    yield* serveDeliveryAdmin(nc);
    yield* Effect.forkScoped(runUsageAggregator(nc, usage));
    const registry = yield* Chains;
    const { cache: indexCache, disowned, wallets: indexedWallets } = yield* IndexReader.Index;
    const metrics = yield* Metrics;
    watchIndexCaches(metrics, indexCache);
    metrics.watchRpc(() => clients.all());
    const discovery = yield* Discovery.Discovery;
    const ingestBook = yield* IngestStatusBook.IngestStatusBook;
    metrics.watchDiscovery({
      counts: discovery.stats,
      name: (chainId) => registry.byId.get(chainId)?.name ?? String(chainId),
      backfills: () =>
        registry.chains.map((chain) => {
          const progress =
            ingestBook.get(chain.chain_id)?.indexed_from === 0
              ? undefined
              : discovery.registryProgress(chain.chain_id);
          return { chainId: chain.chain_id, ...(progress === undefined ? {} : { progress }) };
        }),
      recordedWallets: (chainId) => indexedWallets.recordedWallets(chainId),
    });
    if (config.indexSnapshotMinutes > 0)
      yield* Effect.forkScoped(
        runIndexSnapshots({
          db,
          store: snapshots,
          jsm,
          fingerprint,
          intervalMs: config.indexSnapshotMinutes * 60_000,
        }),
      );
    yield* Effect.forkScoped(
      runIndexer({
        nc,
        db,
        cache: indexCache,
        ...(walletTokens === undefined ? {} : { presence: walletTokens }),
        disowned,
        wallets: indexedWallets,
        registry,
        client: (yield* ChainClients.ChainClients).get,
        onTrimmed: (trimmed) => discovery.indexTrimmed(trimmed.at, trimmed.chain_id),
        onGap: (chainId, gap) => discovery.indexGap(chainId, gap?.to),
        onApplied: (chainId, block) =>
          metrics.indexed(chainId, registry.byId.get(chainId)?.name ?? String(chainId), block),
      }),
    );
    yield* runWebhookNotifier(nc, webhookBuckets.webhooks, blocksBucket, jsm, webhookSettings).pipe(
      startupStep("starting the webhook notifier (its first read of the address lists)"),
    );
    yield* Presence.heartbeat(nc, "api");
    yield* DeliveryLayer.runOutboxOwnership(outboxBucket, jsm, webhookSettings);
  }).pipe(Effect.provide(context));

  return buckets;
});
