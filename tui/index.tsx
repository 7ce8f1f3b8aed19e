import { Effect } from "effect";
import { render } from "ink";
import * as AppConfig from "../src/AppConfig.js";
import { resolveBroker } from "../src/nats/Broker.js";
import { NatsConnections, layer as natsLayer } from "../src/nats/NatsConnections.js";
import { makeAdminClient } from "./AdminClient.js";
import { App } from "./App.js";

/** `npm run tui`: connects as the `admin` NATS user and renders until q; then drains NATS. */
const main = Effect.gen(function* () {
  const settings = yield* AppConfig.appSettings;
  const broker = yield* resolveBroker(settings, { spawnIfAbsent: false });
  yield* Effect.gen(function* () {
    const nc = yield* (yield* NatsConnections).get("admin");
    const app = render(<App client={makeAdminClient(nc)} />);
    yield* Effect.promise(() => app.waitUntilExit());
  }).pipe(Effect.provide(natsLayer(broker)));
}).pipe(
  Effect.scoped,
  Effect.catchAll((error) =>
    Effect.sync(() => {
      process.stderr.write(`${(error as { message?: string }).message ?? String(error)}\n`);
      process.exitCode = 1;
    }),
  ),
);

void Effect.runPromise(main);
