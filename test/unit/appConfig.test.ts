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
    });
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
});
