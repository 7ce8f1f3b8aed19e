import { Config, ConfigError, Context, Effect, Either, Layer, LogLevel, Option } from "effect";
import { ALL_ROLES, type Role } from "./domain/Role.js";
import { parseApiKeyHeaders } from "./gateway/apiKeyHeaders.js";
import { type NatsTls, parseNatsTls } from "./nats/natsTls.js";
import { DEFAULT_RETRY_SCHEDULE_MS, parseRetrySchedule } from "./webhooks/delivery/retrySchedule.js";
import { isSecretKey } from "./webhooks/secrets/secretSealing.js";
import { parseAllowEntry } from "./webhooks/targets/hostAllowList.js";

/** Settings read once at start-up from the environment (see README, "Configuration"). */
export interface AppSettings {
  /** HTTP port of the gateway. */
  readonly port: number;
  /** NATS server URL(s), comma-separated; `None` means 127.0.0.1:4222 or a spawned nats-server. */
  readonly natsUrl: Option.Option<string>;
  /** Credentials for an external NATS server; with a spawned server each role gets its own. */
  readonly natsUser: Option.Option<string>;
  readonly natsPassword: Option.Option<string>;
  /**
   * Password of nats.conf's `provision` user for a server named by NATS_URL: when
   * set, this process creates or updates the streams and buckets at start.
   */
  readonly natsProvisionPassword: Option.Option<string>;
  /**
   * A JSON file of passwords by NATS user (as the service writes under DATA_DIR):
   * with NATS_URL, each role of this process connects as its own user from it,
   * so one process can run several roles under least privilege.
   */
  readonly natsCredentialsFile: Option.Option<string>;
  /** TLS for NATS connections (NATS_TLS_CA, NATS_TLS_CERT, NATS_TLS_KEY); `undefined`: plain connections. */
  readonly natsTls: NatsTls | undefined;
  /** Copies JetStream keeps of every stream and bucket the service provisions: 1 on one server, 3 in a cluster. */
  readonly jetstreamReplicas: number;
  /**
   * Most GiB CHAIN_EVENTS keeps (CHAIN_EVENTS_MAX_GB): past it the oldest chain events are dropped,
   * so a busy chain never fills the JetStream store and stops ingest (docs/operations.md, sizing).
   */
  readonly chainEventsMaxGb: number;
  /**
   * How long an ingest process that stops renewing its lease on a chain keeps it,
   * in ms: a standby takes the chain over after that much silence.
   */
  readonly ingestLeaseMs: number;
  /**
   * How long an API process that stops renewing its lease on a webhook outbox
   * partition keeps it, in ms: another API process takes the partition's
   * deliveries over after that much silence.
   */
  readonly webhookLeaseMs: number;
  /** Directory for LevelDB indexes, the spawned nats-server store and the devnet. */
  readonly dataDir: string;
  /** Path of a chains file (see src/chains/ChainsConfig.ts); `None` runs the embedded devnet. */
  readonly chainsConfig: Option.Option<string>;
  readonly logLevel: LogLevel.LogLevel;
  /** Roles this process runs. */
  readonly roles: ReadonlyArray<Role>;
  /** How long the gateway waits for a worker's reply, in ms. */
  readonly requestTimeoutMs: number;
  /** Extra header names (lower case) the gateway accepts the API key in, besides X-Svc-Api-Key. */
  readonly apiKeyHeaders: ReadonlyArray<string>;
  /** Base URL clients reach the service at, for links in responses (logos, docs). */
  readonly publicUrl: string;
  /** Default per-key token bucket: sustained requests per second and burst size. */
  readonly rateLimitRps: number;
  readonly rateLimitBurst: number;
  /** Wallet reads (per wallet, chain and block) kept in memory per API worker; 0 turns the cache off. */
  readonly balancesCacheEntries: number;
  /** Approximate MB those wallet reads may hold together (a 1,200-token wallet weighs hundreds of small ones). */
  readonly balancesCacheMb: number;
  /** Approximate MB of index views (wallet tokens, token pools, token metadata) kept in memory per API worker. */
  readonly indexCacheMb: number;
  /** Approximate MB of historical prices (per chain, block and token) kept in memory per API worker. */
  readonly priceHistoryCacheMb: number;
  /**
   * Minutes between snapshots of the index that API workers with an empty DATA_DIR start from
   * (written by one worker at a time); 0: this worker writes none (it still starts from one).
   */
  readonly indexSnapshotMinutes: number;
  /** How long a wallet's first balances or positions request waits for its discovery sweep (docs/real-chains.md). */
  readonly discoveryWaitMs: number;
  /** Hours after which a wallet's sweep is done again, in the background, on its next request. */
  readonly discoveryResweepHours: number;
  /** Most tokens one chain's discovery universe holds. */
  readonly discoveryUniverseMax: number;
  /** Most sweeps (chain and wallet) waiting on this API worker; a first sweep beyond it is turned away until asked again. */
  readonly discoverySweepQueueMax: number;
  /** Most request-started log scans (chain and wallet) waiting on this API worker; one beyond it answers without the history read. */
  readonly discoveryScanQueueMax: number;
  /** Whether webhook URLs may use plain http; default: only with the embedded devnet. */
  readonly webhookAllowHttp: boolean;
  /** Non-public webhook targets accepted anyway: host names, IP addresses, CIDR ranges. */
  readonly webhookAllowedHosts: ReadonlyArray<string>;
  /** Most webhooks one team may have. */
  readonly webhookMaxPerTeam: number;
  /** Most addresses one webhook may subscribe to. */
  readonly webhookMaxAddresses: number;
  /** Most addresses one request may carry (per array). */
  readonly webhookMaxAddressesPerCall: number;
  /** Delays (ms) between delivery attempts; after the last one a delivery is dead-lettered. */
  readonly webhookRetrySchedule: ReadonlyArray<number>;
  /** Compute units charged per delivered webhook event. */
  readonly webhookCuPerEvent: number;
  /** Deadline of one delivery attempt (connect, send, response), ms; connecting alone gets at most 5 s. */
  readonly webhookTimeoutMs: number;
  /**
   * AES-256 keys (base64 of 32 bytes) that encrypt webhook signing secrets at rest;
   * the first encrypts, every one decrypts (for a key rotation). `None`: a key
   * generated into DATA_DIR on first start.
   */
  readonly webhookSecretKeys: Option.Option<ReadonlyArray<string>>;
  /** Port of a metrics-only HTTP listener (GET /metrics) in any process; `None`: none. */
  readonly metricsPort: Option.Option<number>;
  /** Bearer token that opens GET /metrics on the gateway's port; `None`: not served there. */
  readonly metricsToken: Option.Option<string>;
  /** Teams (names) whose CU get their own metric series; empty: the first 20 teams charged. */
  readonly metricsTeams: ReadonlyArray<string>;
}

export class AppConfig extends Context.Tag("app/AppConfig")<AppConfig, AppSettings>() {}

const invalid = (name: string, accepted: string, got: string) =>
  ConfigError.InvalidData([], `${name} must be ${accepted} (got "${got}").`);

/** An optional string variable, with surrounding whitespace trimmed and empty taken as unset. */
const optionalString = (name: string) =>
  Config.option(Config.string(name)).pipe(
    Config.map((value) =>
      Option.filter(
        Option.map(value, (s) => s.trim()),
        (s) => s.length > 0,
      ),
    ),
  );

const integer = (name: string, fallback: number, min: number, max: number) =>
  optionalString(name).pipe(
    Config.mapOrFail((value) => {
      if (Option.isNone(value)) return Either.right(fallback);
      const parsed = /^\d+$/.test(value.value) ? Number(value.value) : Number.NaN;
      return Number.isSafeInteger(parsed) && parsed >= min && parsed <= max
        ? Either.right(parsed)
        : Either.left(invalid(name, `an integer from ${min} to ${max}`, value.value));
    }),
  );

const LOG_LEVELS: Record<string, LogLevel.LogLevel> = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None,
};

const logLevel = optionalString("LOG_LEVEL").pipe(
  Config.mapOrFail((value) => {
    const raw = Option.getOrElse(value, () => "info").toLowerCase();
    const level = LOG_LEVELS[raw];
    return level === undefined
      ? Either.left(invalid("LOG_LEVEL", `one of ${Object.keys(LOG_LEVELS).join(", ")}`, raw))
      : Either.right(level);
  }),
);

const natsUrl = optionalString("NATS_URL").pipe(
  Config.mapOrFail((value): Either.Either<Option.Option<string>, ConfigError.ConfigError> => {
    if (Option.isNone(value)) return Either.right(value);
    const urls = value.value.split(",").map((s) => s.trim());
    const ok = urls.every((url) => /^(nats|tls|ws|wss):\/\/[^\s/]+(:\d+)?\/?$|^[^\s:/]+:\d+$/.test(url));
    return ok
      ? Either.right(value)
      : Either.left(invalid("NATS_URL", "a comma-separated list of nats://host:port URLs", value.value));
  }),
);

const natsTls = Config.all({
  ca: optionalString("NATS_TLS_CA"),
  cert: optionalString("NATS_TLS_CERT"),
  key: optionalString("NATS_TLS_KEY"),
}).pipe(
  Config.mapOrFail((values) => {
    const parsed = parseNatsTls({
      ca: Option.getOrUndefined(values.ca),
      cert: Option.getOrUndefined(values.cert),
      key: Option.getOrUndefined(values.key),
    });
    return "problems" in parsed
      ? Either.left(ConfigError.InvalidData([], parsed.problems.join(" ")))
      : Either.right(parsed.tls);
  }),
);

/** Parses a comma-separated role list, as given to `--roles` or `ROLES`. */
export const parseRoles = (raw: string): Either.Either<ReadonlyArray<Role>, string> => {
  const names = raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const unknown = names.filter((name) => !ALL_ROLES.some((role) => role === name));
  if (names.length === 0 || unknown.length > 0) {
    return Either.left(`a comma-separated list of roles from ${ALL_ROLES.join(", ")}`);
  }
  return Either.right(ALL_ROLES.filter((role) => names.includes(role)));
};

const roles = optionalString("ROLES").pipe(
  Config.mapOrFail((value) => {
    if (Option.isNone(value)) return Either.right(ALL_ROLES);
    return Either.mapLeft(parseRoles(value.value), (accepted) => invalid("ROLES", accepted, value.value));
  }),
);

const apiKeyHeaders = optionalString("API_KEY_HEADERS").pipe(
  Config.mapOrFail((value) => {
    if (Option.isNone(value)) return Either.right([] as ReadonlyArray<string>);
    return Either.mapLeft(parseApiKeyHeaders(value.value), (accepted) =>
      invalid("API_KEY_HEADERS", accepted, value.value.slice(0, 200)),
    );
  }),
);

const boolean = (name: string) =>
  optionalString(name).pipe(
    Config.mapOrFail((value): Either.Either<Option.Option<boolean>, ConfigError.ConfigError> => {
      if (Option.isNone(value)) return Either.right(Option.none());
      const lower = value.value.toLowerCase();
      if (lower === "true" || lower === "1") return Either.right(Option.some(true));
      if (lower === "false" || lower === "0") return Either.right(Option.some(false));
      return Either.left(invalid(name, "true or false", value.value));
    }),
  );

const webhookAllowedHosts = optionalString("WEBHOOK_ALLOWED_HOSTS").pipe(
  Config.mapOrFail((value): Either.Either<Option.Option<ReadonlyArray<string>>, ConfigError.ConfigError> => {
    if (Option.isNone(value)) return Either.right(Option.none());
    const entries = value.value
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
    return entries.every((entry) => parseAllowEntry(entry) !== undefined)
      ? Either.right(Option.some(entries))
      : Either.left(
          invalid(
            "WEBHOOK_ALLOWED_HOSTS",
            "a comma-separated list of host names, IP addresses or CIDR ranges",
            value.value,
          ),
        );
  }),
);

const webhookRetrySchedule = optionalString("WEBHOOK_RETRY_SCHEDULE").pipe(
  Config.mapOrFail((value) => {
    if (Option.isNone(value)) return Either.right(DEFAULT_RETRY_SCHEDULE_MS);
    const parsed = parseRetrySchedule(value.value);
    return parsed === undefined
      ? Either.left(
          invalid(
            "WEBHOOK_RETRY_SCHEDULE",
            "a comma-separated list of delays with units ms, s, m or h (e.g. 5s,5m,30m), each at most a week",
            value.value,
          ),
        )
      : Either.right(parsed);
  }),
);

const webhookSecretKeys = optionalString("WEBHOOK_SECRET_KEY").pipe(
  Config.mapOrFail((value): Either.Either<Option.Option<ReadonlyArray<string>>, ConfigError.ConfigError> => {
    if (Option.isNone(value)) return Either.right(Option.none());
    const keys = value.value.split(",").map((s) => s.trim());
    // The value is a secret: the error describes it without echoing it.
    return keys.every(isSecretKey)
      ? Either.right(Option.some(keys))
      : Either.left(
          ConfigError.InvalidData(
            [],
            `WEBHOOK_SECRET_KEY must be the base64 of 32 random bytes (e.g. from \`openssl rand -base64 32\`), or a comma-separated list of them (got ${keys.length} value(s), not all of that form).`,
          ),
        );
  }),
);

const metricsPort = optionalString("METRICS_PORT").pipe(
  Config.mapOrFail((value): Either.Either<Option.Option<number>, ConfigError.ConfigError> => {
    if (Option.isNone(value)) return Either.right(Option.none());
    const parsed = /^\d+$/.test(value.value) ? Number(value.value) : Number.NaN;
    return Number.isSafeInteger(parsed) && parsed >= 1 && parsed <= 65535
      ? Either.right(Option.some(parsed))
      : Either.left(invalid("METRICS_PORT", "an integer from 1 to 65535", value.value));
  }),
);

const metricsToken = optionalString("METRICS_TOKEN").pipe(
  Config.mapOrFail((value): Either.Either<Option.Option<string>, ConfigError.ConfigError> => {
    if (Option.isNone(value) || /^[\x21-\x7e]{16,512}$/.test(value.value)) return Either.right(value);
    // A secret: described, never echoed.
    return Either.left(
      ConfigError.InvalidData(
        [],
        "METRICS_TOKEN must be 16 to 512 printable characters without spaces (e.g. from `openssl rand -hex 24`).",
      ),
    );
  }),
);

const metricsTeams = optionalString("METRICS_TEAMS").pipe(
  Config.map((value) =>
    Option.match(value, {
      onNone: () => [] as ReadonlyArray<string>,
      onSome: (list) =>
        list
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s.length > 0),
    }),
  ),
);

/** With the embedded devnet, demos deliver to a receiver on this machine. */
const DEVNET_ALLOWED_HOSTS = ["localhost", "127.0.0.0/8", "::1"];

const settingsFields = Config.all({
  port: integer("PORT", 8080, 1, 65535),
  natsUrl,
  natsUser: optionalString("NATS_USER"),
  natsPassword: optionalString("NATS_PASSWORD"),
  natsProvisionPassword: optionalString("NATS_PROVISION_PASSWORD"),
  natsCredentialsFile: optionalString("NATS_CREDENTIALS_FILE"),
  natsTls,
  // JetStream allows at most 5 replicas; more than the cluster's servers is refused when provisioning.
  jetstreamReplicas: integer("JETSTREAM_REPLICAS", 1, 1, 5),
  // 6 of nats.conf's 10 GB: the rest holds the outbox, usage records and buckets.
  chainEventsMaxGb: integer("CHAIN_EVENTS_MAX_GB", 6, 1, 100_000),
  ingestLeaseMs: integer("INGEST_LEASE_MS", 10_000, 1_000, 300_000),
  webhookLeaseMs: integer("WEBHOOK_LEASE_MS", 10_000, 1_000, 300_000),
  dataDir: optionalString("DATA_DIR").pipe(Config.map(Option.getOrElse(() => "./data"))),
  chainsConfig: optionalString("CHAINS_CONFIG"),
  logLevel,
  roles,
  requestTimeoutMs: integer("REQUEST_TIMEOUT_MS", 10_000, 100, 300_000),
  apiKeyHeaders,
  publicUrl: optionalString("PUBLIC_URL").pipe(
    Config.mapOrFail((value): Either.Either<Option.Option<string>, ConfigError.ConfigError> => {
      if (Option.isNone(value)) return Either.right(value);
      return /^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(value.value)
        ? Either.right(Option.some(value.value.replace(/\/+$/, "")))
        : Either.left(invalid("PUBLIC_URL", "an absolute http(s) URL", value.value));
    }),
  ),
  rateLimitRps: integer("RATE_LIMIT_RPS", 100, 1, 1_000_000),
  rateLimitBurst: integer("RATE_LIMIT_BURST", 200, 1, 1_000_000),
  balancesCacheEntries: integer("BALANCES_CACHE_ENTRIES", 5_000, 0, 10_000_000),
  balancesCacheMb: integer("BALANCES_CACHE_MB", 64, 1, 65_536),
  indexCacheMb: integer("INDEX_CACHE_MB", 64, 1, 65_536),
  priceHistoryCacheMb: integer("PRICE_HISTORY_CACHE_MB", 16, 1, 65_536),
  indexSnapshotMinutes: integer("INDEX_SNAPSHOT_MINUTES", 60, 0, 10_080),
  discoveryWaitMs: integer("DISCOVERY_WAIT_MS", 5_000, 0, 60_000),
  discoveryResweepHours: integer("DISCOVERY_RESWEEP_HOURS", 24, 1, 8_760),
  discoveryUniverseMax: integer("DISCOVERY_UNIVERSE_MAX", 50_000, 0, 1_000_000),
  discoverySweepQueueMax: integer("DISCOVERY_SWEEP_QUEUE_MAX", 10_000, 1, 1_000_000),
  discoveryScanQueueMax: integer("DISCOVERY_SCAN_QUEUE_MAX", 10_000, 1, 1_000_000),
  webhookAllowHttp: boolean("WEBHOOK_ALLOW_HTTP"),
  webhookAllowedHosts,
  webhookMaxPerTeam: integer("WEBHOOK_MAX_PER_TEAM", 100, 1, 100_000),
  webhookMaxAddresses: integer("WEBHOOK_MAX_ADDRESSES", 10_000, 1, 100_000),
  webhookMaxAddressesPerCall: integer("WEBHOOK_MAX_ADDRESSES_PER_CALL", 1_000, 1, 100_000),
  webhookRetrySchedule,
  webhookCuPerEvent: integer("WEBHOOK_CU_PER_EVENT", 2, 0, 1_000),
  webhookTimeoutMs: integer("WEBHOOK_TIMEOUT_MS", 15_000, 100, 60_000),
  webhookSecretKeys,
  metricsPort,
  metricsToken,
  metricsTeams,
});

/** All settings, each variable validated on its own so every error names its variable. */
export const appSettings: Config.Config<AppSettings> = Config.map(settingsFields, (fields) => {
  const devnet = Option.isNone(fields.chainsConfig);
  return {
    ...fields,
    publicUrl: Option.getOrElse(fields.publicUrl, () => `http://localhost:${fields.port}`),
    webhookAllowHttp: Option.getOrElse(fields.webhookAllowHttp, () => devnet),
    webhookAllowedHosts: Option.getOrElse(fields.webhookAllowedHosts, () =>
      devnet ? DEVNET_ALLOWED_HOSTS : [],
    ),
  };
});

/** The messages of a ConfigError, one sentence per invalid variable. */
export const describeConfigError = (error: ConfigError.ConfigError): ReadonlyArray<string> =>
  ConfigError.reduceWithContext(error, undefined, {
    andCase: (_, left: ReadonlyArray<string>, right: ReadonlyArray<string>) => [...left, ...right],
    orCase: (_, left: ReadonlyArray<string>, right: ReadonlyArray<string>) => [...left, ...right],
    invalidDataCase: (_, path, message) => [path.length > 0 ? `${path.join(".")}: ${message}` : message],
    missingDataCase: (_, path, message) => [`${path.join(".")}: ${message}`],
    sourceUnavailableCase: (_, path, message) => [`${path.join(".")}: ${message}`],
    unsupportedCase: (_, path, message) => [`${path.join(".")}: ${message}`],
  });

/** Reads the settings; overrides (e.g. from `--roles`) win over the environment. */
export const layer = (overrides: Partial<AppSettings> = {}) =>
  Layer.effect(
    AppConfig,
    Effect.map(appSettings, (settings) => ({ ...settings, ...overrides })),
  );
