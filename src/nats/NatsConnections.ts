import { hostname } from "node:os";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { Context, Effect, Layer, Runtime, Schedule } from "effect";
import { NatsConnectionError } from "./NatsError.js";
import { inboxPrefix, type NatsUser } from "./NatsUser.js";
import type { NatsTls } from "./natsTls.js";

/** Where the broker is and how each user authenticates to it. */
export interface BrokerAddress {
  /** Comma-separated server URLs. */
  readonly servers: string;
  /** Credentials per user; `undefined` connects without credentials. */
  readonly credentials: (user: NatsUser) => { readonly user: string; readonly pass: string } | undefined;
  /**
   * Whether this process may act as the `provision` user (create or update streams
   * and buckets): it knows that user's password, or the server has no users at all.
   */
  readonly canProvision: boolean;
  /** TLS for every connection (NATS_TLS_*); `undefined` connects as the URLs say. */
  readonly tls?: NatsTls;
}

/**
 * One NATS connection per user, opened on first use and drained when the layer's
 * scope closes (in-flight replies and acks are flushed before the process exits).
 */
export class NatsConnections extends Context.Tag("app/nats/NatsConnections")<
  NatsConnections,
  {
    readonly servers: string;
    readonly get: (user: NatsUser) => Effect.Effect<NatsConnection, NatsConnectionError>;
  }
>() {}

/** How long one connection attempt may take. */
const CONNECT_ATTEMPT_MS = 5_000;

const openConnection = (address: BrokerAddress, user: NatsUser) =>
  Effect.tryPromise({
    try: () =>
      connect({
        servers: address.servers.split(",").map((s) => s.trim()),
        name: `svc-${user}-${hostname()}-${process.pid}`,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        // Capturing a stack trace for every request costs more than the request itself on hot paths.
        noAsyncTraces: true,
        // Per attempt (the client's default is 20 s): a server that never completes the handshake,
        // e.g. one that wants a client certificate this process lacks, is reported within seconds.
        timeout: CONNECT_ATTEMPT_MS,
        // Replies come back under the user's own prefix, the only inboxes nats.conf lets it read.
        inboxPrefix: inboxPrefix(user),
        ...address.credentials(user),
        ...(address.tls === undefined ? {} : { tls: address.tls }),
      }),
    catch: (cause) => new NatsConnectionError({ servers: address.servers, cause }),
  }).pipe(
    // Said at every failed attempt: a refused certificate or a wrong address otherwise looks like a hang.
    Effect.tapError((error) =>
      Effect.logWarning(
        `${error.message} (as ${user}); trying again${
          address.tls !== undefined && address.tls.certFile === undefined
            ? " (servers that verify clients, as deploy/nats/'s do, also need NATS_TLS_CERT and NATS_TLS_KEY)"
            : ""
        }`,
      ),
    ),
    // The broker may still be starting (a spawned server, a cluster rolling): retry for about 10 s.
    Effect.retry(Schedule.intersect(Schedule.spaced("250 millis"), Schedule.recurs(40))),
    Effect.withSpan("NatsConnections.open", { attributes: { user } }),
  );

export const layer = (
  address: BrokerAddress,
  /** Told about each connection once it is open (metrics follow its state). */
  onOpen?: (user: NatsUser, nc: NatsConnection) => void,
): Layer.Layer<NatsConnections> =>
  Layer.scoped(
    NatsConnections,
    Effect.gen(function* () {
      const opened = new Map<NatsUser, Promise<NatsConnection>>();
      // Connections are opened outside any one caller's fiber (shared by all): through the layer's
      // runtime, so their retries log with the service's logger and LOG_LEVEL.
      const runPromise = Runtime.runPromise(yield* Effect.runtime<never>());
      yield* Effect.addFinalizer(() =>
        Effect.promise(() =>
          Promise.allSettled(
            [...opened.values()].map(async (pending) => {
              const nc = await pending;
              if (!nc.isClosed()) await nc.drain();
            }),
          ),
        ),
      );
      const get = (user: NatsUser) =>
        Effect.suspend(() => {
          const existing = opened.get(user);
          if (existing !== undefined) return Effect.promise(() => existing);
          const pending = runPromise(openConnection(address, user)).then((nc) => {
            onOpen?.(user, nc);
            return nc;
          });
          opened.set(user, pending);
          return Effect.tryPromise({
            try: () => pending,
            catch: (cause) => {
              opened.delete(user);
              return cause instanceof NatsConnectionError
                ? cause
                : new NatsConnectionError({ servers: address.servers, cause });
            },
          });
        });
      return { servers: address.servers, get } as const;
    }),
  );
