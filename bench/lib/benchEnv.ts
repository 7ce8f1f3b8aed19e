import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect } from "effect";
import { createKey } from "../../src/api/keys/KeyStore.js";
import { freePort } from "../../src/lib/freePort.js";
import { adminBuckets } from "../../test/support/anvilService.js";
import type { TestNats } from "../../test/support/natsServer.js";
import { startChild } from "./child.js";

/**
 * Starts the service (gateway, api, ingest) in its own process against
 * `chainsConfig`, and waits until healthy. A `dataDir` of an earlier run makes
 * it a restart; a fixed `port` lets the caller watch it while it starts; `script`
 * runs a variant of the service (e.g. one that reports its memory on stdout).
 * BENCH_SERVICE_CPU_PROF=<dir> runs every service process under `--cpu-prof`, its
 * profile written to that directory when the process stops; BENCH_SERVICE_NODE_FLAGS
 * adds Node flags to every service process (e.g. `--max-semi-space-size=32` to see
 * what a larger young generation changes), and to the bare loops of coldFloor.ts.
 */
export const startServiceProcess = async (
  nats: TestNats,
  chainsConfig: string,
  options: {
    readonly env?: NodeJS.ProcessEnv;
    readonly dataDir?: string;
    readonly port?: number;
    readonly script?: string;
    /** Told the process id as soon as it is spawned. */
    readonly onSpawn?: (pid: number) => void;
  } = {},
) => {
  const port = options.port ?? (await freePort());
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), "svc-bench-")));
  const profileDir = process.env.BENCH_SERVICE_CPU_PROF;
  const child = await startChild(
    options.script ?? "bench/servers/service.ts",
    {
      PORT: String(port),
      BENCH_NATS: JSON.stringify({ url: nats.url, credentials: nats.credentials }),
      CHAINS_CONFIG: chainsConfig,
      DATA_DIR: dataDir,
      ...options.env,
    },
    undefined,
    [
      ...(profileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`]),
      ...(process.env.BENCH_SERVICE_NODE_FLAGS?.split(" ").filter((f) => f !== "") ?? []),
    ],
    options.onSpawn,
  );
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.process.pid!,
    dataDir,
    stop: child.stop,
    /** What the process prints after `ready`. */
    stdout: child.process.stdout!,
  };
};

/** A key of a new team, made through the admin path. */
export const benchKey = async (nats: TestNats, team: string) => {
  const buckets = await adminBuckets(await nats.connectAs("admin"));
  return (await Effect.runPromise(createKey(buckets, team))).key;
};

export { rewriteChainsFile } from "../../test/support/chainsFile.js";
