import { join } from "node:path";
import { Effect, Option, Schedule } from "effect";
import type { Role } from "../domain/Role.js";

/** What the announcement needs of the operator's settings. */
export interface ReadySettings {
  readonly publicUrl: string;
  readonly port: number;
  readonly roles: ReadonlyArray<Role>;
  /** CHAINS_CONFIG: without one the service runs the devnet and writes its demo key under DATA_DIR. */
  readonly chainsConfig: Option.Option<string>;
  readonly dataDir: string;
}

/** How a person starts using the service, once it answers: where, with which key, and the operator UI. */
export const readyLines = (config: ReadySettings): ReadonlyArray<string> => [
  `Service ready: ${config.publicUrl}`,
  `  API description: ${config.publicUrl}/openapi.json`,
  ...(Option.isNone(config.chainsConfig)
    ? [`  Demo API key:    ${join(config.dataDir, "devnet.json")} (field api_key, team demo)`]
    : [`  API keys:        npm run admin -- keys create --team <name>`]),
  "  Operator UI:     npm run tui",
];

/**
 * Waits until this process's gateway answers /healthz with 200 (every role up,
 * every chain answering, indexes caught up), then says so: one log line, and on
 * a terminal the same as a short block a person can copy from. Without the
 * gateway role there is no URL to give, and nothing is announced.
 */
export const announceReady = (config: ReadySettings) =>
  Effect.gen(function* () {
    if (!config.roles.includes("gateway")) return;
    // Aborted when interrupted: a request left open would keep a failed process from exiting.
    const healthy = Effect.tryPromise(async (signal) => {
      const res = await fetch(`http://127.0.0.1:${config.port}/healthz`, { signal });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`healthz ${res.status}`);
    });
    yield* healthy.pipe(Effect.retry(Schedule.spaced("500 millis")));
    const lines = readyLines(config);
    yield* Effect.logInfo(lines.map((line) => line.trim().replace(/\s{2,}/g, " ")).join(" · "));
    if (process.stdout.isTTY) process.stdout.write(`\n${lines.join("\n")}\n\n`);
  });
