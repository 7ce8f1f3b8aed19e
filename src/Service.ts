import { Effect, Layer } from "effect";
import { AppConfig } from "./AppConfig.js";
import * as ChainClients from "./chains/ChainClients.js";
import { resolveBroker } from "./nats/Broker.js";
import type { BrokerAddress } from "./nats/NatsConnections.js";
import * as NatsConnections from "./nats/NatsConnections.js";
import { apiRole } from "./roles/apiRole.js";
import { chainsSource } from "./roles/chainsSource.js";
import { provisionDemoKey } from "./roles/demoKey.js";
import { gatewayRole } from "./roles/gatewayRole.js";
import { ingestRole } from "./roles/ingestRole.js";
import { resetDerivedState } from "./roles/resetDerivedState.js";
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
  return yield* runRoles(yield* resolveBroker(config, { spawnIfAbsent: true }));
}).pipe(Effect.scoped);

/** Runs the configured roles against a known broker until interrupted (tests call this directly). */
export const runRoles = (broker: BrokerAddress) =>
  Effect.gen(function* () {
    const config = yield* AppConfig;
    const nats = yield* Layer.build(NatsConnections.layer(broker));
    yield* Effect.gen(function* () {
      if (config.roles.includes("api") || config.roles.includes("ingest")) {
        const chains = yield* chainsSource;
        if (chains.devnet !== undefined) {
          yield* resetDerivedState(
            yield* (yield* NatsConnections.NatsConnections).get("api"),
            config.dataDir,
          );
        }
        const chainLayer = Layer.provideMerge(ChainClients.layer, chains.layer);
        const context = yield* Layer.build(Layer.merge(chainLayer, Level.layer(levelPath(config.dataDir))));
        if (config.roles.includes("ingest")) yield* ingestRole.pipe(Effect.provide(context));
        if (config.roles.includes("api")) {
          const buckets = yield* apiRole.pipe(Effect.provide(context));
          if (chains.devnet !== undefined) {
            const key = yield* provisionDemoKey(buckets, config.dataDir);
            yield* Effect.logInfo(`demo API key (team demo): ${key}`);
          }
        }
      }
      if (config.roles.includes("gateway")) yield* gatewayRole;
      yield* Effect.logInfo(`running roles: ${config.roles.join(", ")}`);
    }).pipe(Effect.provide(nats));
    return yield* Effect.never;
  });
