import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigProvider, Effect, Either } from "effect";
import { describe, expect, it } from "vitest";
import { appSettings, describeConfigError } from "../../src/AppConfig.js";

const read = (env: Record<string, string>) =>
  Effect.runSync(
    Effect.either(
      Effect.withConfigProvider(appSettings, ConfigProvider.fromMap(new Map(Object.entries(env)))),
    ),
  );
const errorsOf = (env: Record<string, string>) => {
  const settings = read(env);
  return Either.isLeft(settings) ? describeConfigError(settings.left).join(" ") : "";
};

describe("NATS cluster settings", () => {
  it("default: one replica, plain connections, no credentials file", () => {
    const settings = read({});
    expect(Either.isRight(settings) && settings.right).toMatchObject({
      jetstreamReplicas: 1,
      natsTls: undefined,
    });
  });

  it("args: JETSTREAM_REPLICAS from 1 to 5; anything else is named", () => {
    const settings = read({ JETSTREAM_REPLICAS: "3" });
    expect(Either.isRight(settings) && settings.right.jetstreamReplicas).toBe(3);
    expect(errorsOf({ JETSTREAM_REPLICAS: "0" })).toMatch(
      /^JETSTREAM_REPLICAS must be an integer from 1 to 5/,
    );
    expect(errorsOf({ JETSTREAM_REPLICAS: "three" })).toMatch(/^JETSTREAM_REPLICAS must be/);
  });

  it("args: NATS_TLS_* name PEM files, which are checked at start", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-tls-settings-"));
    const pem = join(dir, "a.pem");
    await writeFile(pem, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
    const notPem = join(dir, "b.der");
    await writeFile(notPem, "binary");
    const settings = read({ NATS_TLS_CA: pem, NATS_TLS_CERT: pem, NATS_TLS_KEY: pem });
    expect(Either.isRight(settings) && settings.right.natsTls).toEqual({
      caFile: pem,
      certFile: pem,
      keyFile: pem,
    });
    expect(errorsOf({ NATS_TLS_CA: join(dir, "missing.pem") })).toContain(
      `NATS_TLS_CA must name a readable PEM file (got "${join(dir, "missing.pem")}"`,
    );
    expect(errorsOf({ NATS_TLS_CA: notPem })).toContain("NATS_TLS_CA must name a PEM file");
    expect(errorsOf({ NATS_TLS_CERT: pem })).toContain("NATS_TLS_CERT and NATS_TLS_KEY must be set together");
  });
});
