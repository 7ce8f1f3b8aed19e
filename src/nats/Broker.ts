import { join } from "node:path";
import { Data, Effect, Option, type Scope } from "effect";
import { reasonOf } from "../lib/errorReason.js";
import type { BrokerAddress } from "./NatsConnections.js";
import { isListening, spawnNatsServer } from "./NatsServerProcess.js";
import type { NatsUser } from "./NatsUser.js";
import { loadOrCreateCredentials, readCredentials, readCredentialsFile } from "./natsCredentials.js";
import type { NatsTls } from "./natsTls.js";

const DEFAULT_HOST = "127.0.0.1";
const DEFAULT_PORT = 4222;

export class BrokerUnavailable extends Data.TaggedError("BrokerUnavailable")<{ readonly message: string }> {}

const withCredentials = (
  servers: string,
  credentials: Partial<Record<NatsUser, string>> | undefined,
): BrokerAddress => ({
  servers,
  credentials: (user) => {
    const pass = credentials?.[user];
    return pass === undefined ? undefined : { user, pass };
  },
  // No credentials file: a server of the operator's without users, where anyone may set up JetStream.
  canProvision: credentials === undefined || credentials.provision !== undefined,
});

/** What finding the broker reads of the operator's settings (NATS_* and DATA_DIR). */
export interface BrokerSettings {
  readonly natsUrl: Option.Option<string>;
  readonly natsUser: Option.Option<string>;
  readonly natsPassword: Option.Option<string>;
  readonly natsProvisionPassword: Option.Option<string>;
  readonly natsCredentialsFile: Option.Option<string>;
  readonly natsTls: NatsTls | undefined;
  readonly dataDir: string;
}

/**
 * Finds the NATS server to use, in this order: `NATS_URL` (with `NATS_USER` /
 * `NATS_PASSWORD` when set); a server already answering on 127.0.0.1:4222 (with
 * the credentials file under DATA_DIR, if a previous start spawned it); otherwise,
 * when `spawnIfAbsent`, a nats-server started now as a child process of this scope.
 *
 * With `NATS_URL` and `NATS_CREDENTIALS_FILE`, each role connects as its own
 * user with the file's password (and provisions when the file holds `provision`'s).
 * With `NATS_URL` alone, every role connects as `NATS_USER`, and the `provision` user
 * is available only when `NATS_PROVISION_PASSWORD` is set (or when no user is
 * configured at all: a server without users has nothing to separate).
 */
export const resolveBroker = (
  settings: BrokerSettings,
  options: { readonly spawnIfAbsent: boolean },
): Effect.Effect<BrokerAddress, BrokerUnavailable, Scope.Scope> =>
  Effect.gen(function* () {
    const tls = settings.natsTls === undefined ? {} : { tls: settings.natsTls };
    if (Option.isSome(settings.natsUrl) && Option.isSome(settings.natsCredentialsFile)) {
      const path = settings.natsCredentialsFile.value;
      const credentials = yield* Effect.promise(() => readCredentialsFile(path));
      if (credentials === undefined)
        return yield* new BrokerUnavailable({
          message: `NATS_CREDENTIALS_FILE must name a readable JSON file of passwords by NATS user, e.g. {"gateway": "...", "api": "..."} (got "${path}").`,
        });
      return { ...withCredentials(settings.natsUrl.value, credentials), ...tls };
    }
    if (Option.isSome(settings.natsUrl)) {
      const user = Option.getOrUndefined(settings.natsUser);
      const pass = Option.getOrUndefined(settings.natsPassword);
      const provisionPass = Option.getOrUndefined(settings.natsProvisionPassword);
      return {
        servers: settings.natsUrl.value,
        credentials: (role) => {
          if (role === "provision" && provisionPass !== undefined) return { user: role, pass: provisionPass };
          return user === undefined || pass === undefined ? undefined : { user, pass };
        },
        canProvision: provisionPass !== undefined || user === undefined,
        ...tls,
      };
    }
    const servers = `nats://${DEFAULT_HOST}:${DEFAULT_PORT}`;
    if (yield* Effect.promise(() => isListening(DEFAULT_HOST, DEFAULT_PORT))) {
      const credentials = yield* Effect.promise(() => readCredentials(settings.dataDir));
      // Said by the service (the tools' output stays theirs), since its streams and buckets then
      // live in that server's store, not under DATA_DIR.
      if (options.spawnIfAbsent)
        yield* Effect.logInfo(
          `using the NATS server already running at ${servers} (${credentials === undefined ? "no credentials under DATA_DIR: connecting without a password" : `with the credentials under ${settings.dataDir}`}); set NATS_URL to choose another`,
        );
      return withCredentials(servers, credentials);
    }
    if (!options.spawnIfAbsent) {
      return yield* new BrokerUnavailable({
        message: `Nothing answers on ${servers}: start the service with \`npm start\`, or set NATS_URL.`,
      });
    }
    const credentials = yield* Effect.tryPromise({
      try: () => loadOrCreateCredentials(settings.dataDir),
      catch: (cause) =>
        new BrokerUnavailable({
          message: `The NATS credentials cannot be written under ${settings.dataDir} (${reasonOf(cause)}): check DATA_DIR and its permissions.`,
        }),
    });
    const server = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          spawnNatsServer({
            host: DEFAULT_HOST,
            port: DEFAULT_PORT,
            storeDir: join(settings.dataDir, "nats"),
            credentials,
          }),
        catch: (cause) =>
          new BrokerUnavailable({ message: cause instanceof Error ? cause.message : String(cause) }),
      }),
      (spawned) => Effect.promise(() => spawned.stop()),
    );
    yield* Effect.logInfo(`started nats-server at ${server.url} (store under ${settings.dataDir}/nats)`);
    return withCredentials(server.url, credentials);
  });
