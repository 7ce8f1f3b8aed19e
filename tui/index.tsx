import { join } from "node:path";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { Effect, Either } from "effect";
import { render } from "ink";
import * as AppConfig from "../src/AppConfig.js";
import { resolveBroker } from "../src/nats/Broker.js";
import { inboxPrefix } from "../src/nats/NatsUser.js";
import { makeAdminClient } from "./AdminClient.js";
import { App } from "./App.js";

/**
 * The admin connection, opened on first use and again after a failed attempt,
 * so the TUI starts (and says why it has no data) even while NATS is down.
 * Once open, the client reconnects by itself for as long as the TUI runs.
 */
const adminConnection = (settings: AppConfig.AppSettings) => {
  let pending: Promise<NatsConnection> | undefined;
  const open = async () => {
    const broker = await Effect.runPromise(
      Effect.either(Effect.scoped(resolveBroker(settings, { spawnIfAbsent: false }))),
    );
    if (Either.isLeft(broker)) throw new Error(broker.left.message);
    return connect({
      servers: broker.right.servers.split(",").map((s) => s.trim()),
      name: `svc-tui-${process.pid}`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      inboxPrefix: inboxPrefix("admin"),
      ...broker.right.credentials("admin"),
      ...(broker.right.tls === undefined ? {} : { tls: broker.right.tls }),
    });
  };
  return {
    get: () => {
      pending ??= open().catch((error: unknown) => {
        pending = undefined;
        throw error;
      });
      return pending;
    },
    drain: async () => {
      const nc = await pending?.catch(() => undefined);
      if (nc !== undefined && !nc.isClosed()) await nc.drain();
    },
  };
};

/** `npm run tui`: renders until q or Ctrl+C as the `admin` NATS user, then drains NATS. */
const main = Effect.gen(function* () {
  const settings = yield* AppConfig.appSettings;
  const connection = adminConnection(settings);
  const app = render(
    <App client={makeAdminClient(connection.get, join(settings.dataDir, "operator-api-key"))} />,
  );
  yield* Effect.promise(() => app.waitUntilExit());
  yield* Effect.promise(() => connection.drain());
}).pipe(
  Effect.catchAll((error) =>
    Effect.sync(() => {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 1;
    }),
  ),
);

void Effect.runPromise(main).then(() => process.exit());
