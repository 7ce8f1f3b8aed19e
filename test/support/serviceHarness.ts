import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect, Exit, Fiber, Layer, Logger, LogLevel, Option } from "effect";
import { AppConfig, type AppSettings } from "../../src/AppConfig.js";
import type { Role } from "../../src/domain/Role.js";
import { ALL_ROLES } from "../../src/domain/Role.js";
import { freePort } from "../../src/lib/freePort.js";
import { runRoles } from "../../src/Service.js";
import { DEFAULT_RETRY_SCHEDULE_MS } from "../../src/webhooks/delivery/retrySchedule.js";
import type { TestNats } from "./natsServer.js";

/**
 * The key that seals webhook secrets in every service a test starts, so API
 * workers with different data directories (several workers, restarts) read
 * each other's secrets, as a deployment with one WEBHOOK_SECRET_KEY does.
 */
export const TEST_WEBHOOK_SECRET_KEY = randomBytes(32).toString("base64");

export interface RunningService {
  readonly baseUrl: string;
  readonly port: number;
  readonly dataDir: string;
  /** Interrupts the service and waits for every finalizer (HTTP drain, NATS drain). */
  readonly stop: () => Promise<void>;
}

/** A chains file with one chain per given RPC URL, written to a temp dir. */
export const writeChainsFile = async (
  dir: string,
  chains: ReadonlyArray<{
    chainId: number;
    name: string;
    rpcUrl: string;
    tags?: ReadonlyArray<string>;
    /** Any other chain-config fields (ws_url, start_block, traces, ...). */
    extra?: Record<string, unknown>;
  }>,
): Promise<string> => {
  const path = join(dir, "chains.json");
  await writeFile(
    path,
    JSON.stringify({
      chains: chains.map((c) => ({
        chain_id: c.chainId,
        name: c.name,
        rpc_url: c.rpcUrl,
        tags: c.tags ?? ["default"],
        native: { symbol: "ETH", name: "Ether", decimals: 18 },
        ...c.extra,
      })),
    }),
  );
  return path;
};

/**
 * Runs the service's roles in this process against a test NATS server, on a
 * free port, with settings built here rather than read from the environment.
 */
export const startService = async (
  nats: TestNats,
  options: {
    /** Unset: the service starts the embedded devnet in its data directory (see seededDataDir). */
    chainsConfig?: string;
    roles?: ReadonlyArray<Role>;
    settings?: Partial<AppSettings>;
    /** Reuse a data directory (a restart); a new temporary one otherwise, removed on stop. */
    dataDir?: string;
  },
): Promise<RunningService> => {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), "svc-data-")));
  const port = await freePort();
  const settings: AppSettings = {
    port,
    natsUrl: Option.some(nats.url),
    natsUser: Option.none(),
    natsPassword: Option.none(),
    natsProvisionPassword: Option.none(),
    natsCredentialsFile: Option.none(),
    natsTls: undefined,
    jetstreamReplicas: 1,
    chainEventsMaxGb: 6,
    ingestLeaseMs: 10_000,
    webhookLeaseMs: 10_000,
    dataDir,
    chainsConfig: Option.fromNullable(options.chainsConfig),
    logLevel: process.env.TEST_LOG === "debug" ? LogLevel.Debug : LogLevel.Warning,
    roles: options.roles ?? ALL_ROLES,
    // The service's default: a shorter one made bursts of requests 504 on a machine whose cores are busy.
    requestTimeoutMs: 10_000,
    apiKeyHeaders: [],
    publicUrl: `http://127.0.0.1:${port}`,
    rateLimitRps: 1_000,
    rateLimitBurst: 1_000,
    balancesCacheEntries: 5_000,
    balancesCacheMb: 64,
    indexCacheMb: 64,
    priceHistoryCacheMb: 16,
    indexSnapshotMinutes: 60,
    discoveryWaitMs: 5_000,
    discoveryResweepHours: 24,
    discoveryUniverseMax: 50_000,
    discoverySweepQueueMax: 10_000,
    discoveryScanQueueMax: 10_000,
    webhookAllowHttp: false,
    webhookAllowedHosts: [],
    webhookMaxPerTeam: 100,
    webhookMaxAddresses: 10_000,
    webhookMaxAddressesPerCall: 1_000,
    webhookRetrySchedule: DEFAULT_RETRY_SCHEDULE_MS,
    webhookCuPerEvent: 2,
    webhookTimeoutMs: 15_000,
    webhookSecretKeys: Option.some([TEST_WEBHOOK_SECRET_KEY]),
    metricsPort: Option.none(),
    metricsToken: Option.none(),
    metricsTeams: [],
    ...options.settings,
  };
  const program = runRoles(nats.broker).pipe(
    Effect.scoped,
    Effect.provide(Layer.succeed(AppConfig, settings)),
    Logger.withMinimumLogLevel(settings.logLevel),
  );
  const fiber = Effect.runFork(program);
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  const wantsGateway = settings.roles.includes("gateway");
  while (wantsGateway) {
    const exit = fiber.unsafePoll();
    if (exit !== null)
      throw new Error(`service stopped during start: ${Exit.isFailure(exit) ? String(exit.cause) : "ok"}`);
    try {
      await fetch(`${baseUrl}/openapi.json`);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error("service did not start within 30 s");
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    baseUrl,
    port,
    dataDir,
    stop: async () => {
      await Effect.runPromise(Fiber.interrupt(fiber));
      if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
};

/**
 * Polls `check` until it returns true or the timeout passes. The timeout is how long to wait before
 * calling the test failed, not a speed promise: keep it generous (a busy machine is slow).
 */
export const eventually = async (check: () => Promise<boolean>, timeoutMs = 30_000, what = "condition") => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};
