import { Effect, Fiber, Layer, Logger, LogLevel, Option } from "effect";
import { AppConfig, type AppSettings } from "../../src/AppConfig.js";
import { ALL_ROLES } from "../../src/domain/Role.js";
import type { BrokerAddress } from "../../src/nats/NatsConnections.js";
import type { NatsCredentials } from "../../src/nats/natsCredentials.js";
import { runRoles } from "../../src/Service.js";
import { DEFAULT_RETRY_SCHEDULE_MS, parseRetrySchedule } from "../../src/webhooks/delivery/retrySchedule.js";

/**
 * The service in a process of its own (every role, or those in ROLES, e.g.
 * `gateway,api`), against the benchmark's nats-server with per-role credentials
 * (given as JSON in BENCH_NATS). Prints `ready` once /healthz answers 200, or at
 * once when it runs no gateway.
 * WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOWED_HOSTS and WEBHOOK_RETRY_SCHEDULE pass
 * through, so tests can aim webhooks at local receivers.
 */
const { url, credentials } = JSON.parse(process.env.BENCH_NATS ?? "{}") as {
  url: string;
  credentials: NatsCredentials;
};
const broker: BrokerAddress = {
  servers: url,
  credentials: (user) => ({ user, pass: credentials[user] }),
  canProvision: true,
};
const settings: AppSettings = {
  port: Number(process.env.PORT),
  natsUrl: Option.some(url),
  natsUser: Option.none(),
  natsPassword: Option.none(),
  natsProvisionPassword: Option.none(),
  natsCredentialsFile: Option.none(),
  natsTls: undefined,
  jetstreamReplicas: Number(process.env.JETSTREAM_REPLICAS ?? 1),
  chainEventsMaxGb: 6,
  ingestLeaseMs: 10_000,
  webhookLeaseMs: 10_000,
  dataDir: process.env.DATA_DIR ?? "./data",
  chainsConfig: Option.some(process.env.CHAINS_CONFIG ?? ""),
  logLevel: LogLevel.Warning,
  roles:
    process.env.ROLES === undefined
      ? ALL_ROLES
      : ALL_ROLES.filter((r) => process.env.ROLES!.split(",").includes(r)),
  requestTimeoutMs: 10_000,
  apiKeyHeaders: [],
  publicUrl: `http://127.0.0.1:${process.env.PORT}`,
  rateLimitRps: 1_000_000,
  rateLimitBurst: 1_000_000,
  balancesCacheEntries: Number(process.env.BALANCES_CACHE_ENTRIES ?? 5_000),
  balancesCacheMb: Number(process.env.BALANCES_CACHE_MB ?? 64),
  indexCacheMb: Number(process.env.INDEX_CACHE_MB ?? 64),
  priceHistoryCacheMb: Number(process.env.PRICE_HISTORY_CACHE_MB ?? 16),
  indexSnapshotMinutes: Number(process.env.INDEX_SNAPSHOT_MINUTES ?? 60),
  discoveryWaitMs: Number(process.env.DISCOVERY_WAIT_MS ?? 5_000),
  discoveryResweepHours: 24,
  discoveryUniverseMax: 50_000,
  discoverySweepQueueMax: 10_000,
  discoveryScanQueueMax: 10_000,
  webhookAllowHttp: process.env.WEBHOOK_ALLOW_HTTP === "true",
  webhookAllowedHosts: (process.env.WEBHOOK_ALLOWED_HOSTS ?? "").split(",").filter((s) => s.length > 0),
  webhookMaxPerTeam: Number(process.env.WEBHOOK_MAX_PER_TEAM ?? 100),
  webhookMaxAddresses: Number(process.env.WEBHOOK_MAX_ADDRESSES ?? 10_000),
  webhookMaxAddressesPerCall: Number(process.env.WEBHOOK_MAX_ADDRESSES_PER_CALL ?? 1_000),
  webhookRetrySchedule:
    parseRetrySchedule(process.env.WEBHOOK_RETRY_SCHEDULE ?? "") ?? DEFAULT_RETRY_SCHEDULE_MS,
  webhookCuPerEvent: 2,
  webhookTimeoutMs: Number(process.env.WEBHOOK_TIMEOUT_MS ?? 15_000),
  webhookSecretKeys: Option.none(),
  metricsPort:
    process.env.METRICS_PORT === undefined ? Option.none() : Option.some(Number(process.env.METRICS_PORT)),
  metricsToken: Option.none(),
  metricsTeams: [],
};
const fiber = Effect.runFork(
  runRoles(broker).pipe(
    Effect.scoped,
    Effect.provide(Layer.succeed(AppConfig, settings)),
    Logger.withMinimumLogLevel(LogLevel.Warning),
  ),
);
if (!settings.roles.includes("gateway")) process.stdout.write("ready\n");
const poll = setInterval(async () => {
  if (!settings.roles.includes("gateway")) return clearInterval(poll);
  try {
    if ((await fetch(`http://127.0.0.1:${settings.port}/healthz`)).status === 200) {
      clearInterval(poll);
      process.stdout.write("ready\n");
    }
  } catch {
    // not listening yet
  }
}, 100);
process.on("SIGTERM", () => {
  Effect.runPromise(Fiber.interrupt(fiber)).then(() => process.exit(0));
});
