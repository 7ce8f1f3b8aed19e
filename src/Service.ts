import { Effect, Layer, Option } from "effect";
import { AppConfig } from "./AppConfig.js";
import * as ChainClients from "./chains/ChainClients.js";
import { walletTokenView } from "./indexer/indexKeys.js";
import { Metrics, makeMetrics } from "./metrics/Metrics.js";
import { serveMetrics } from "./metrics/metricsServer.js";
import { resolveBroker } from "./nats/Broker.js";
import type { BrokerAddress } from "./nats/NatsConnections.js";
import * as NatsConnections from "./nats/NatsConnections.js";
import { describeProvisioning, GIB, provisionWhenReady } from "./nats/provisionJetStream.js";
import { apiRole } from "./roles/apiRole.js";
import { chainsSource } from "./roles/chainsSource.js";
import { provisionDemoKey } from "./roles/demoKey.js";
import { gatewayRole } from "./roles/gatewayRole.js";
import { ingestRole } from "./roles/ingestRole.js";
import { resetDerivedState } from "./roles/resetDerivedState.js";
import { announceReady } from "./runtime/announceReady.js";
import { startupStep } from "./runtime/startupStep.js";
import { levelPath } from "./storage/dataDirDb.js";
import * as Level from "./storage/Level.js";

/**
 * The whole service: find or start NATS, load the chains (or start the devnet),
 * then run the configured roles until interrupted. Scopes close in reverse: the
 * gateway stops taking requests and drains first, then workers, then NATS, then
 * the devnet and any spawned nats-server.
 */
export const service = Effect.gen(function* () {
  const config = yield* AppConfig;
  yield* Effect.forkScoped(announceReady(config));
  return yield* runRoles(yield* resolveBroker(config, { spawnIfAbsent: true }));
}).pipe(Effect.scoped);

const DEVNET_NEEDS_PROVISION =
  "The embedded devnet drops the CHAIN_EVENTS stream on every start, which only the NATS user provision may do: set NATS_PROVISION_PASSWORD, or serve real chains with CHAINS_CONFIG.";

/**
 * Runs the configured roles against a known broker until interrupted (tests call
 * this directly). A process that knows the `provision` user's password creates or
 * updates the streams and buckets first; the others wait for them to exist.
 */
export const runRoles = (broker: BrokerAddress) =>
  Effect.gen(function* () {
    const config = yield* AppConfig;
    const metrics = makeMetrics({ teams: config.metricsTeams });
    if (Option.isSome(config.metricsPort)) {
      yield* serveMetrics(metrics.registry, config.metricsPort.value);
      yield* Effect.logInfo(`metrics on http://localhost:${config.metricsPort.value}/metrics`);
    }
    const nats = yield* Layer.build(NatsConnections.layer(broker, metrics.watchNats));
    yield* Effect.gen(function* () {
      const connections = yield* NatsConnections.NatsConnections;
      const chains =
        config.roles.includes("api") || config.roles.includes("ingest") ? yield* chainsSource : undefined;
      if (chains?.devnet !== undefined) {
        if (!broker.canProvision) return yield* Effect.fail(new Error(DEVNET_NEEDS_PROVISION));
        yield* resetDerivedState(yield* connections.get("provision"), config.dataDir).pipe(
          startupStep("resetting the devnet's derived state"),
        );
      }
      // After the reset, so a dropped stream is created again before any role binds to it.
      if (broker.canProvision)
        yield* Effect.logInfo(
          describeProvisioning(
            yield* provisionWhenReady(yield* connections.get("provision"), {
              replicas: config.jetstreamReplicas,
              chainEventsMaxBytes: config.chainEventsMaxGb * GIB,
            }).pipe(startupStep("provisioning the JetStream streams and buckets")),
          ),
        );
      if (chains !== undefined) {
        const chainLayer = Layer.provideMerge(ChainClients.layer, chains.layer);
        const context = yield* Layer.build(
          // Planning a block asks for a hundred wallet-token keys that are absent: a filter rules them out.
          Layer.merge(chainLayer, Level.layer(levelPath(config.dataDir), [walletTokenView])),
        ).pipe(startupStep("opening the chains' clients and the local store"));
        if (config.roles.includes("ingest"))
          yield* ingestRole.pipe(Effect.provide(context), startupStep("starting the ingest role"));
        if (config.roles.includes("api")) {
          const buckets = yield* apiRole.pipe(Effect.provide(context));
          if (chains.devnet !== undefined) {
            const key = yield* provisionDemoKey(buckets, config.dataDir);
            yield* Effect.logInfo(`demo API key (team demo): ${key}`);
          }
        }
      }
      if (config.roles.includes("gateway")) yield* gatewayRole.pipe(startupStep("starting the gateway"));
      yield* Effect.logInfo(`running roles: ${config.roles.join(", ")}`);
    }).pipe(Effect.provide(nats), Effect.provideService(Metrics, metrics));
    return yield* Effect.never;
  });
