import { ConfigProvider, Effect, Either, LogLevel, Option } from "effect";
import { describe, expect, it } from "vitest";
import { appSettings, describeConfigError } from "../../src/AppConfig.js";

const read = (env: Record<string, string>) =>
  Effect.runSync(
    Effect.either(
      Effect.withConfigProvider(appSettings, ConfigProvider.fromMap(new Map(Object.entries(env)))),
    ),
  );

describe("AppConfig", () => {
  it("default: every setting has a default", () => {
    const settings = read({});
    expect(Either.isRight(settings) && settings.right).toMatchObject({
      port: 8080,
      dataDir: "./data",
      logLevel: LogLevel.Info,
      roles: ["gateway", "api", "ingest"],
      publicUrl: "http://localhost:8080",
      natsUrl: Option.none(),
      chainsConfig: Option.none(),
      webhookAllowHttp: true,
      webhookAllowedHosts: ["localhost", "127.0.0.0/8", "::1"],
      webhookMaxPerTeam: 100,
      webhookMaxAddresses: 10_000,
      webhookMaxAddressesPerCall: 1_000,
      webhookRetrySchedule: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
      webhookCuPerEvent: 2,
      webhookTimeoutMs: 15_000,
    });
  });

  it("args: delivery settings are parsed, and a bad one is one sentence naming it", () => {
    const settings = read({
      WEBHOOK_RETRY_SCHEDULE: "1s,2m",
      WEBHOOK_CU_PER_EVENT: "3",
      WEBHOOK_TIMEOUT_MS: "500",
    });
    expect(Either.isRight(settings) && settings.right).toMatchObject({
      webhookRetrySchedule: [1_000, 120_000],
      webhookCuPerEvent: 3,
      webhookTimeoutMs: 500,
    });
    const bad = read({ WEBHOOK_RETRY_SCHEDULE: "soon" });
    expect(Either.isLeft(bad) && describeConfigError(bad.left).join(" ")).toMatch(
      /^WEBHOOK_RETRY_SCHEDULE must be/,
    );
  });

  it("default: with a chains file, webhooks need https and public targets", () => {
    const settings = read({ CHAINS_CONFIG: "/etc/chains.json" });
    expect(Either.isRight(settings) && settings.right).toMatchObject({
      webhookAllowHttp: false,
      webhookAllowedHosts: [],
    });
  });

  it("args: webhook settings are parsed; explicit values win over the devnet defaults", () => {
    const settings = read({
      WEBHOOK_ALLOW_HTTP: "TRUE",
      WEBHOOK_ALLOWED_HOSTS: " hooks.internal , 10.20.0.0/16,fd00::/8 ",
      WEBHOOK_MAX_PER_TEAM: "5",
      WEBHOOK_MAX_ADDRESSES: "50",
      WEBHOOK_MAX_ADDRESSES_PER_CALL: "10",
      CHAINS_CONFIG: "/etc/chains.json",
    });
    expect(Either.isRight(settings) && settings.right).toMatchObject({
      webhookAllowHttp: true,
      webhookAllowedHosts: ["hooks.internal", "10.20.0.0/16", "fd00::/8"],
      webhookMaxPerTeam: 5,
      webhookMaxAddresses: 50,
      webhookMaxAddressesPerCall: 10,
    });
    const devnetStrict = read({ WEBHOOK_ALLOW_HTTP: "false" });
    expect(Either.isRight(devnetStrict) && devnetStrict.right.webhookAllowHttp).toBe(false);
  });

  it("error: each bad webhook variable gets one sentence naming it", () => {
    const settings = read({
      WEBHOOK_ALLOW_HTTP: "maybe",
      WEBHOOK_ALLOWED_HOSTS: "localhost,10.0.0.0/99",
      WEBHOOK_MAX_PER_TEAM: "0",
      WEBHOOK_MAX_ADDRESSES: "lots",
      WEBHOOK_MAX_ADDRESSES_PER_CALL: "-1",
    });
    expect(Either.isLeft(settings) && describeConfigError(settings.left)).toEqual([
      'WEBHOOK_ALLOW_HTTP must be true or false (got "maybe").',
      'WEBHOOK_ALLOWED_HOSTS must be a comma-separated list of host names, IP addresses or CIDR ranges (got "localhost,10.0.0.0/99").',
      'WEBHOOK_MAX_PER_TEAM must be an integer from 1 to 100000 (got "0").',
      'WEBHOOK_MAX_ADDRESSES must be an integer from 1 to 100000 (got "lots").',
      'WEBHOOK_MAX_ADDRESSES_PER_CALL must be an integer from 1 to 100000 (got "-1").',
    ]);
  });

  it("behavior: the discovery queues' limits default to 10,000 wallets each, take an operator's value, and a bad one is one sentence naming it", () => {
    const defaults = read({});
    expect(Either.isRight(defaults) && defaults.right).toMatchObject({
      discoverySweepQueueMax: 10_000,
      discoveryScanQueueMax: 10_000,
    });
    const set = read({ DISCOVERY_SWEEP_QUEUE_MAX: "50000", DISCOVERY_SCAN_QUEUE_MAX: " 200 " });
    expect(Either.isRight(set) && set.right).toMatchObject({
      discoverySweepQueueMax: 50_000,
      discoveryScanQueueMax: 200,
    });
    const bad = read({ DISCOVERY_SWEEP_QUEUE_MAX: "0", DISCOVERY_SCAN_QUEUE_MAX: "lots" });
    expect(Either.isLeft(bad) && describeConfigError(bad.left)).toEqual([
      'DISCOVERY_SWEEP_QUEUE_MAX must be an integer from 1 to 1000000 (got "0").',
      'DISCOVERY_SCAN_QUEUE_MAX must be an integer from 1 to 1000000 (got "lots").',
    ]);
  });

  it("args: values are parsed and trimmed; PUBLIC_URL loses its trailing slash", () => {
    const settings = read({
      PORT: " 9000 ",
      LOG_LEVEL: "DEBUG",
      ROLES: "api",
      PUBLIC_URL: "https://api.example.com/",
    });
    expect(Either.isRight(settings) && settings.right).toMatchObject({
      port: 9000,
      logLevel: LogLevel.Debug,
      roles: ["api"],
      publicUrl: "https://api.example.com",
    });
  });

  it("error: each bad variable gets one sentence naming it and what is accepted", () => {
    const settings = read({ PORT: "0", RATE_LIMIT_RPS: "fast", ROLES: "cook", PUBLIC_URL: "ftp://x" });
    expect(Either.isLeft(settings) && describeConfigError(settings.left)).toEqual([
      'PORT must be an integer from 1 to 65535 (got "0").',
      'ROLES must be a comma-separated list of roles from gateway, api, ingest (got "cook").',
      'PUBLIC_URL must be an absolute http(s) URL (got "ftp://x").',
      'RATE_LIMIT_RPS must be an integer from 1 to 1000000 (got "fast").',
    ]);
  });

  it("behavior: WEBHOOK_SECRET_KEY takes one or more base64 keys of 32 bytes, and a bad one is refused without echoing it", () => {
    const [a, b] = [Buffer.alloc(32, 1).toString("base64"), Buffer.alloc(32, 2).toString("base64url")];
    const both = read({ WEBHOOK_SECRET_KEY: `${a}, ${b}`, NATS_PROVISION_PASSWORD: "p" });
    expect(Either.isRight(both) && both.right).toMatchObject({
      webhookSecretKeys: Option.some([a, b]),
      natsProvisionPassword: Option.some("p"),
    });
    const unset = read({});
    expect(Either.isRight(unset) && unset.right.webhookSecretKeys).toEqual(Option.none());
    const short = Buffer.alloc(16, 3).toString("base64");
    const bad = read({ WEBHOOK_SECRET_KEY: short });
    const message = Either.isLeft(bad) ? describeConfigError(bad.left).join(" ") : "";
    expect(message).toMatch(/^WEBHOOK_SECRET_KEY must be the base64 of 32 random bytes/);
    expect(message).not.toContain(short);
  });

  it("behavior: metrics settings are off by default; a bad port or token is one sentence, the token never echoed", () => {
    const unset = read({});
    expect(Either.isRight(unset) && unset.right).toMatchObject({
      metricsPort: Option.none(),
      metricsToken: Option.none(),
      metricsTeams: [],
    });
    const token = "0123456789abcdef0123456789abcdef";
    const set = read({ METRICS_PORT: "9464", METRICS_TOKEN: token, METRICS_TEAMS: " acme, bots ,," });
    expect(Either.isRight(set) && set.right).toMatchObject({
      metricsPort: Option.some(9464),
      metricsToken: Option.some(token),
      metricsTeams: ["acme", "bots"],
    });
    const badPort = read({ METRICS_PORT: "70000" });
    expect(Either.isLeft(badPort) && describeConfigError(badPort.left)).toEqual([
      'METRICS_PORT must be an integer from 1 to 65535 (got "70000").',
    ]);
    const badToken = read({ METRICS_TOKEN: "short secret" });
    const message = Either.isLeft(badToken) ? describeConfigError(badToken.left).join(" ") : "";
    expect(message).toMatch(/^METRICS_TOKEN must be 16 to 512 printable characters/);
    expect(message).not.toContain("short secret");
  });

  it("behavior: API_KEY_HEADERS is off by default and names extra key headers; a bad name stops start-up", () => {
    const unset = read({});
    expect(Either.isRight(unset) && unset.right.apiKeyHeaders).toEqual([]);
    const set = read({ API_KEY_HEADERS: "X-Api-Key, x-old-key" });
    expect(Either.isRight(set) && set.right.apiKeyHeaders).toEqual(["x-api-key", "x-old-key"]);
    for (const bad of ["x api key", "content-type"]) {
      const refused = read({ API_KEY_HEADERS: bad });
      expect(Either.isLeft(refused) && describeConfigError(refused.left).join(" "), bad).toMatch(
        new RegExp(
          `^API_KEY_HEADERS must be a comma-separated list of HTTP header names .*\\(got "${bad}"\\)\\.$`,
        ),
      );
    }
  });
});
