import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect } from "effect";
import { createKey } from "../src/api/keys/KeyStore.js";
import { startAnvil } from "../src/devnet/AnvilProcess.js";
import { freePort } from "../src/lib/freePort.js";
import { openBucket } from "../src/nats/JetStreamSetup.js";
import { startTestNats } from "../test/support/natsServer.js";
import { writeChainsFile } from "../test/support/serviceHarness.js";
import { type Child, startChild } from "./lib/child.js";
import { measureCpu } from "./lib/cpu.js";
import { type LoadResult, load } from "./lib/load.js";
import { natsServerPid } from "./lib/natsServerPid.js";
import { median, spread } from "./lib/stats.js";

const CONNECTIONS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const REPETITIONS = Number(process.env.BENCH_REPETITIONS ?? 3);

interface Run {
  readonly load: LoadResult;
  /** CPU µs per request of each process kind. */
  readonly cpuUs: Record<string, number>;
}

/**
 * Requests per second of authenticated `/v1/account` through one gateway+api
 * process against two (each its own OS process, like `npm run cluster`), with
 * one ingest process and one nats-server; the load generator (autocannon, 32
 * connections in all, split evenly over the gateways) runs in this process.
 * Reports the ratio and the CPU each process kind spends per request, read from
 * /proc. The one-process runs come first, then the second process joins: with
 * both running, the queue group spreads requests over both API workers
 * whichever gateway took them.
 */
export const scaleOutBench = async () => {
  const nats = await startTestNats();
  const anvil = await startAnvil({ chainId: 1 });
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-scale-"));
  const chainsConfig = await writeChainsFile(dir, [{ chainId: 1, name: "ethereum", rpcUrl: anvil.rpcUrl }]);
  const benchNats = JSON.stringify({ url: nats.url, credentials: nats.credentials });
  const children: Array<Child> = [];
  const start = async (roles: string, port?: number) => {
    const child = await startChild("bench/servers/service.ts", {
      ROLES: roles,
      BENCH_NATS: benchNats,
      CHAINS_CONFIG: chainsConfig,
      DATA_DIR: await mkdtemp(join(dir, "data-")),
      ...(port === undefined ? {} : { PORT: String(port) }),
    });
    children.push(child);
    return child;
  };
  try {
    const ingest = await start("ingest");
    const ports = [await freePort(), await freePort()] as const;
    const first = await start("gateway,api", ports[0]);
    const admin = await nats.connectAs("admin");
    const buckets = {
      keys: await Effect.runPromise(openBucket(admin, "keys")),
      teams: await Effect.runPromise(openBucket(admin, "teams")),
    };
    const { key } = await Effect.runPromise(createKey(buckets, "bench"));
    const headers = { "x-svc-api-key": key };
    const urls = ports.map((port) => `http://127.0.0.1:${port}/v1/account`);
    const natsPid = natsServerPid(nats.url);

    const measure = async (gateways: ReadonlyArray<Child>): Promise<Run> => {
      const pids: Record<string, number> = { nats: natsPid, ingest: ingest.process.pid! };
      gateways.forEach((g, i) => {
        pids[`gateway+api ${i + 1}`] = g.process.pid!;
      });
      const measured = await measureCpu(pids, () =>
        Promise.all(
          gateways.map((_, i) =>
            load(urls[i]!, { connections: CONNECTIONS / gateways.length, seconds: SECONDS, headers }),
          ),
        ),
      );
      const results = measured.result;
      const total: LoadResult = {
        requestsPerSecond: results.reduce((sum, r) => sum + r.requestsPerSecond, 0),
        p50Ms: median(results.map((r) => r.p50Ms)),
        p99Ms: Math.max(...results.map((r) => r.p99Ms)),
        non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
        errors: results.reduce((sum, r) => sum + r.errors, 0),
      };
      const requests = total.requestsPerSecond * SECONDS;
      const perRequest = (ms: number) => (ms * 1000) / requests;
      let gatewayApi = 0;
      for (const [name, ms] of Object.entries(measured.cpuMs))
        if (name.startsWith("gateway+api")) gatewayApi += ms;
      return {
        load: total,
        cpuUs: {
          "gateway+api": perRequest(gatewayApi),
          ingest: perRequest(measured.cpuMs.ingest!),
          nats: perRequest(measured.cpuMs.nats!),
          loadgen: perRequest(measured.cpuMs.loadgen!),
        },
      };
    };

    // Warm-up: JIT, connection pools, key cache.
    await load(urls[0]!, { connections: CONNECTIONS, seconds: 2, headers });
    const one: Array<Run> = [];
    for (let i = 0; i < REPETITIONS; i++) one.push(await measure([first]));
    const second = await start("gateway,api", ports[1]);
    await load(urls[1]!, { connections: CONNECTIONS, seconds: 2, headers });
    const two: Array<Run> = [];
    for (let i = 0; i < REPETITIONS; i++) two.push(await measure([first, second]));

    const describe = (label: string, runs: ReadonlyArray<Run>) => [
      `${label}, ${CONNECTIONS} conns: ${spread(
        runs.map((r) => r.load.requestsPerSecond),
        0,
      )} req/s, p50 ${median(runs.map((r) => r.load.p50Ms))} ms, p99 ${median(runs.map((r) => r.load.p99Ms))} ms, non-2xx/errors ${runs.reduce((sum, r) => sum + r.load.non2xx + r.load.errors, 0)}`,
      `  CPU per request (µs): ${Object.keys(runs[0]!.cpuUs)
        .map((kind) => `${kind} ${median(runs.map((r) => r.cpuUs[kind]!)).toFixed(0)}`)
        .join(", ")}`,
    ];
    const ratio =
      median(two.map((r) => r.load.requestsPerSecond)) / median(one.map((r) => r.load.requestsPerSecond));
    return {
      name: "scale-out",
      lines: [
        ...describe("one gateway+api process", one),
        ...describe("two gateway+api processes", two),
        `two over one (req/s): ${ratio.toFixed(2)}`,
      ],
      ratios: { twoOverOne: ratio },
    };
  } finally {
    await Promise.allSettled(children.map((c) => c.stop()));
    await anvil.stop();
    await nats.stop();
  }
};
