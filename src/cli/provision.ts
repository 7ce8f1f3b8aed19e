import { Effect, Layer } from "effect";
import * as AppConfig from "../AppConfig.js";
import { resolveBroker } from "../nats/Broker.js";
import { NatsConnections, layer as natsLayer } from "../nats/NatsConnections.js";
import { GIB, provisionWhenReady } from "../nats/provisionJetStream.js";
import { print, runCli } from "./runCli.js";

const USAGE = `Usage: npm run provision

Creates the service's JetStream streams and KV buckets, or brings an existing
one's configuration up to date, as the NATS user provision (the only user
nats.conf lets do that), prints what it did, and exits. Run it before starting
role processes that do not provision themselves, and after upgrading the service.

Connects to NATS_URL as NATS_USER/NATS_PASSWORD (or as provision with
NATS_PROVISION_PASSWORD), or to 127.0.0.1:4222 with the credentials the
service wrote under DATA_DIR. JETSTREAM_REPLICAS (default 1; 3 on a three-node
cluster) sets the copies of every stream and bucket, existing ones included.
CHAIN_EVENTS_MAX_GB (default 6) bounds CHAIN_EVENTS: past it the oldest chain
events are dropped.`;

const main = Effect.gen(function* () {
  const args = process.argv.slice(2);
  if (args.includes("--help")) return yield* print(USAGE);
  if (args.length > 0) return yield* Effect.fail(new Error(USAGE));
  const settings = yield* AppConfig.appSettings;
  const broker = yield* resolveBroker(settings, { spawnIfAbsent: false });
  yield* Effect.gen(function* () {
    const outcomes = yield* provisionWhenReady(yield* (yield* NatsConnections).get("provision"), {
      replicas: settings.jetstreamReplicas,
      chainEventsMaxBytes: settings.chainEventsMaxGb * GIB,
    });
    for (const { name, outcome } of outcomes) yield* print(`${name}: ${outcome}`);
  }).pipe(Effect.provide(Layer.fresh(natsLayer(broker))));
});

runCli(main);
