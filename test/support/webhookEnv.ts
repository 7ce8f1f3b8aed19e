import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KV } from "@nats-io/kv";
import { Effect, Exit, Scope } from "effect";
import type { AppSettings } from "../../src/AppConfig.js";
import { createKey } from "../../src/api/keys/KeyStore.js";
import { startAnvil } from "../../src/devnet/AnvilProcess.js";
import type { Role } from "../../src/domain/Role.js";
import { openBucket } from "../../src/nats/JetStreamSetup.js";
import { type AddressBook, makeAddressBook } from "../../src/webhooks/notifier/AddressBook.js";
import { makeSecretSealer } from "../../src/webhooks/secrets/secretSealing.js";
import { startTestNats, type TestNats } from "./natsServer.js";
import {
  type RunningService,
  startService,
  TEST_WEBHOOK_SECRET_KEY,
  writeChainsFile,
} from "./serviceHarness.js";

export const WEBHOOKS = "/beta/evm/subscriptions/webhooks";

/**
 * Settings for a service process that delivers to a receiver on this machine and retries quickly:
 * plain HTTP to 127.0.0.0/8, eight retries 200 ms apart, a 2 s timeout per attempt.
 */
export const LOCAL_RECEIVER_ENV = {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOWED_HOSTS: "127.0.0.0/8",
  WEBHOOK_RETRY_SCHEDULE: "200ms,200ms,200ms,200ms,200ms,200ms,200ms,200ms",
  WEBHOOK_TIMEOUT_MS: "2000",
} as const;

/** Opens the secrets stored by services the tests start (they seal with TEST_WEBHOOK_SECRET_KEY). */
export const testSealer = makeSecretSealer([TEST_WEBHOOK_SECRET_KEY]);

/** A JSON object as tests read it. */
export type Json = Readonly<Record<string, unknown>>;

/** One HTTP answer: status, raw text and parsed JSON (when the body is JSON). */
export interface Answer {
  readonly status: number;
  readonly text: string;
  /** The parsed body; tests read the fields they check. */
  readonly json: Json;
  readonly cu: string | null;
}

/** Calls the service with a key: `call("PATCH", "/beta/...", body)`. */
export type Caller = (method: string, path: string, body?: unknown) => Promise<Answer>;

export const callerFor =
  (baseUrl: string, key: string): Caller =>
  async (method, path, body) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        "x-svc-api-key": key,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let json: Json = {};
    try {
      json = text.length > 0 ? (JSON.parse(text) as Json) : {};
    } catch {
      json = {};
    }
    return { status: res.status, text, json, cu: res.headers.get("x-compute-units") };
  };

/** A running service on a test NATS and anvil, chains 1 (subscriptions) and 8453 (no subscriptions). */
export interface WebhookEnv {
  readonly nats: TestNats;
  readonly service: RunningService;
  readonly chainsConfig: string;
  /** A new key for the team (created on first use). */
  readonly keyFor: (team: string) => Promise<string>;
  readonly as: (team: string) => Promise<Caller>;
  /** The webhooks bucket, read through an `api` connection (its owner; `admin` may not read it). */
  readonly buckets: () => Promise<{ webhooks: KV }>;
  /** A notifier's address book over the webhooks bucket, as each API process loads it (stopped by `stop`). */
  readonly addressBook: () => Promise<AddressBook>;
  readonly stop: () => Promise<void>;
}

export const startWebhookEnv = async (
  settings: Partial<AppSettings> = {},
  roles: ReadonlyArray<Role> = ["gateway", "api"],
): Promise<WebhookEnv> => {
  const nats = await startTestNats();
  const anvil = await startAnvil({ chainId: 1 });
  const dir = await mkdtemp(join(tmpdir(), "svc-webhooks-"));
  const chainsConfig = await writeChainsFile(dir, [
    { chainId: 1, name: "ethereum", rpcUrl: anvil.rpcUrl },
    { chainId: 8453, name: "base", rpcUrl: anvil.rpcUrl, extra: { supports: { subscriptions: false } } },
  ]);
  const service = await startService(nats, { chainsConfig, roles, settings });
  const admin = await nats.connectAs("admin");
  const api = await nats.connectAs("api");
  const keyBuckets = {
    keys: await Effect.runPromise(openBucket(admin, "keys")),
    teams: await Effect.runPromise(openBucket(admin, "teams")),
  };
  const keyFor = async (team: string) => (await Effect.runPromise(createKey(keyBuckets, team))).key;
  const books = await Effect.runPromise(Scope.make());
  return {
    nats,
    service,
    chainsConfig,
    keyFor,
    as: async (team) => callerFor(service.baseUrl, await keyFor(team)),
    buckets: async () => ({ webhooks: await Effect.runPromise(openBucket(api, "webhooks")) }),
    addressBook: async () =>
      Effect.runPromise(
        Scope.extend(
          Effect.flatMap(openBucket(api, "webhooks"), (webhooks) => makeAddressBook(webhooks)),
          books,
        ),
      ),
    stop: async () => {
      await Effect.runPromise(Scope.close(books, Exit.void));
      await service.stop();
      await anvil.stop();
      await nats.stop();
    },
  };
};

/** A distinct lower-case address from a number. */
export const addressOf = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

/** A valid create body with overrides. */
export const createBody = (overrides: Record<string, unknown> = {}) => ({
  name: "wallet watcher",
  url: "https://example.com/hooks",
  type: "transactions",
  addresses: [addressOf(1)],
  ...overrides,
});
