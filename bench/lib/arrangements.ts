import { freePort } from "../../src/lib/freePort.js";
import type { TestNats } from "../../test/support/natsServer.js";
import { startServiceProcess } from "./benchEnv.js";
import { cpuNow } from "./cpu.js";

/**
 * How often a catch-up polls /healthz until it shows progress. Each poll is a request through the
 * gateway, the bus and the API worker, the very process whose indexing is timed: every 5 ms it took
 * a third of that process's CPU, and every 25 ms about 5 % of the catch-up's.
 */
const PROGRESS_POLL_MS = 25;
/**
 * Once the index moves, the next poll comes when half the blocks left should be indexed at the rate
 * so far, between these bounds (ms): a catch-up of a second or two is polled about a dozen times
 * rather than every 25 ms, and its end is still seen within 5 ms.
 */
const POLL_BOUNDS_MS = { min: 5, max: 100 } as const;

/** The wait before the next poll of a catch-up that has moved `done` of `done + left` blocks in `elapsedMs`. */
const nextPollMs = (done: number, left: number, elapsedMs: number): number => {
  if (done <= 0 || elapsedMs <= 0) return PROGRESS_POLL_MS;
  const eta = (left * elapsedMs) / done;
  return Math.min(POLL_BOUNDS_MS.max, Math.max(POLL_BOUNDS_MS.min, eta / 2));
};
/** How long a catch-up may take before the benchmark gives up and says where it stood. */
const CATCH_UP_TIMEOUT_MS = Number(process.env.BENCH_CATCH_UP_TIMEOUT_SECONDS ?? 600) * 1000;

/** A chain's (1 unless named) published (by ingestion) and indexed blocks from /healthz, -1 while the service is not answering. */
export const chainProgress = async (url: string, chainId = 1) => {
  try {
    const health = (await (await fetch(`${url}/healthz`)).json()) as {
      chains?: Array<{ chain_id: number; indexed_block?: number | null; processed_block?: number | null }>;
    };
    const chain = health.chains?.find((c) => c.chain_id === chainId);
    return { processed: chain?.processed_block ?? -1, indexed: chain?.indexed_block ?? -1 };
  } catch {
    return { processed: -1, indexed: -1 };
  }
};

/** How the service runs: every role in one process (as `npm start`), or ingest apart from gateway+api. */
export type Arrangement = "one" | "split";
/** The arrangements named in `list` (comma-separated), in its order. */
export const parseArrangements = (list: string): ReadonlyArray<Arrangement> =>
  list.split(",").filter((a): a is Arrangement => a === "one" || a === "split");
export const ARRANGEMENT_NAMES: Record<Arrangement, string> = {
  one: "one process (all roles)",
  split: "ingest process + gateway,api process",
};

/** One process of a deployment: its name (service, ingest, api), role list and how it was started. */
export interface ServiceProcess {
  readonly name: string;
  readonly roles: string | undefined;
  /** Whether a catch-up stops and restarts it (it follows the chain). */
  readonly restarted: boolean;
  readonly port: number;
  /** Where it serves /metrics (its NATS traffic per connection, among others). */
  readonly metricsPort: number;
  readonly dataDir: string;
  readonly pid: number;
  readonly stop: () => Promise<void>;
}

/** The processes of each arrangement, and which of them a catch-up restarts (`restarted`). */
const ARRANGEMENT_PROCESSES: Record<
  Arrangement,
  ReadonlyArray<{ readonly name: string; readonly roles: string | undefined; readonly restarted: boolean }>
> = {
  one: [{ name: "service", roles: undefined, restarted: true }],
  // The API worker stays up while ingestion is down: the catch-up times the pipeline, not a start-up.
  split: [
    { name: "ingest", roles: "ingest", restarted: true },
    { name: "api", roles: "gateway,api", restarted: false },
  ],
};

/** Starts one process of the service; `onSpawn` is told its id as soon as it exists. */
const startProcess = async (
  nats: TestNats,
  chainsConfig: string,
  spec: {
    readonly name: string;
    readonly roles: string | undefined;
    readonly restarted: boolean;
    readonly port: number;
    readonly metricsPort: number;
    readonly dataDir?: string;
    readonly env?: NodeJS.ProcessEnv;
  },
  onSpawn: (name: string, pid: number) => void = () => {},
): Promise<ServiceProcess> => {
  const started = await startServiceProcess(nats, chainsConfig, {
    port: spec.port,
    ...(spec.dataDir === undefined ? {} : { dataDir: spec.dataDir }),
    env: {
      ...spec.env,
      METRICS_PORT: String(spec.metricsPort),
      ...(spec.roles === undefined ? {} : { ROLES: spec.roles }),
    },
    onSpawn: (pid) => onSpawn(spec.name, pid),
  });
  return { ...spec, dataDir: started.dataDir, pid: started.pid, stop: started.stop };
};

/** A running arrangement: where its gateway answers, its processes, and how to stop it all. */
export interface Deployment {
  readonly url: string;
  readonly processes: ReadonlyArray<ServiceProcess>;
  readonly stop: () => Promise<void>;
}

const deployment = (url: string, processes: ReadonlyArray<ServiceProcess>): Deployment => ({
  url,
  processes,
  stop: async () => {
    await Promise.all(processes.map((p) => p.stop()));
  },
});

/** Starts the service as `arrangement` (each process with `env` added) and waits until its gateway is healthy. */
export const startDeployment = async (
  nats: TestNats,
  chainsConfig: string,
  arrangement: Arrangement,
  env: NodeJS.ProcessEnv = {},
): Promise<Deployment> => {
  const gatewayPort = await freePort();
  const specs = await Promise.all(
    ARRANGEMENT_PROCESSES[arrangement].map(async (p) => ({
      ...p,
      port: p.roles === "ingest" ? await freePort() : gatewayPort,
      metricsPort: await freePort(),
      env,
    })),
  );
  return deployment(
    `http://127.0.0.1:${gatewayPort}`,
    await Promise.all(specs.map((spec) => startProcess(nats, chainsConfig, spec))),
  );
};

/** A timed catch-up: when it showed progress and at which block, when the index reached the head, CPU ms at both. */
export interface CatchUp {
  /** When the restart began (the restarted processes spawned), and CPU ms per process from then to `lastAt`. */
  readonly spawnAt: number;
  readonly cpuSinceSpawnMs: Record<string, number>;
  readonly firstAt: number;
  readonly firstBlock: number;
  readonly lastAt: number;
  /** CPU ms per process (by name) spent between the two. */
  readonly cpuMs: Record<string, number>;
  /** The deployment with its restarted processes, running. */
  readonly deployment: Deployment;
}

/**
 * Stops the processes of `running` that follow the chain (the whole service, or the ingest process
 * alone); the returned `restart` starts them again on their data and times chain 1's catch-up on
 * /healthz from the first sign of progress above `from` (a block published or indexed) until the
 * index reaches `head`, with the CPU time of the deployment's processes and of `pids`.
 */
export const stopIngestion = async (nats: TestNats, chainsConfig: string, running: Deployment) => {
  const restarted = running.processes.filter((p) => p.restarted);
  const kept = running.processes.filter((p) => !p.restarted);
  await Promise.all(restarted.map((p) => p.stop()));
  const restart = async (from: number, head: number, pids: Record<string, number>): Promise<CatchUp> => {
    const watched: Record<string, number> = { ...pids };
    for (const p of kept) watched[p.name] = p.pid;
    const spawnAt = performance.now();
    // The restarted processes are new: everything they use is spent after the spawn.
    const atSpawn = cpuNow(watched);
    const restarting = Promise.all(
      restarted.map((p) =>
        startProcess(nats, chainsConfig, p, (name, pid) => {
          watched[name] = pid;
        }),
      ),
    );
    let failed: unknown;
    restarting.catch((error: unknown) => {
      failed = error;
    });
    let first: { at: number; block: number; cpu: Record<string, number> } | undefined;
    const deadline = performance.now() + CATCH_UP_TIMEOUT_MS;
    for (;;) {
      if (failed !== undefined) throw failed;
      const { processed, indexed } = await chainProgress(running.url);
      if (performance.now() > deadline)
        throw new Error(
          `chain 1 not indexed to ${head} within ${CATCH_UP_TIMEOUT_MS / 1000} s of the restart (published ${processed}, indexed ${indexed}); /healthz: ${await (await fetch(`${running.url}/healthz`)).text()}`,
        );
      // Timing starts at the first sign of progress (a block published or indexed); the blocks
      // published before it are left out, while their indexing, if still under way, is counted.
      if (first === undefined && Math.max(processed, indexed) >= from)
        first = { at: performance.now(), block: Math.max(processed, indexed), cpu: cpuNow(watched) };
      if (first !== undefined && indexed >= head) {
        const lastAt = performance.now();
        const cpu = cpuNow(watched);
        const start = first.cpu;
        return {
          spawnAt,
          cpuSinceSpawnMs: Object.fromEntries(
            Object.keys(cpu).map((name) => [name, cpu[name]! - (atSpawn[name] ?? 0)] as const),
          ),
          firstAt: first.at,
          firstBlock: first.block,
          lastAt,
          cpuMs: Object.fromEntries(
            Object.keys(start).map((name) => [name, cpu[name]! - start[name]!] as const),
          ),
          deployment: deployment(running.url, [...kept, ...(await restarting)]),
        };
      }
      const wait =
        first === undefined
          ? PROGRESS_POLL_MS
          : nextPollMs(indexed - first.block, head - indexed, performance.now() - first.at);
      await new Promise((r) => setTimeout(r, wait));
    }
  };
  return { restart };
};
