import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect } from "effect";
import { createKey } from "../src/api/keys/KeyStore.js";
import { startAnvil } from "../src/devnet/AnvilProcess.js";
import { freePort } from "../src/lib/freePort.js";
import { openBucket } from "../src/nats/JetStreamSetup.js";
import { startTestNats } from "../test/support/natsServer.js";
import { startChild } from "./lib/child.js";
import { measureCpu } from "./lib/cpu.js";
import { type LoadResult, load } from "./lib/load.js";
import { natsServerPid } from "./lib/natsServerPid.js";
import { sequential } from "./lib/sequential.js";
import { median, spread } from "./lib/stats.js";
import { natsRoundTrip } from "./natsRoundTrip.js";

const CONNECTIONS = 32;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const REPETITIONS = Number(process.env.BENCH_REPETITIONS ?? 3);

/**
 * Issue-2 figures, all in one run with the variants interleaved (A B A B ...):
 * - R_bus: req/s of HTTP -> gateway -> NATS -> worker (authenticated /v1/account)
 *   over a bare node:http hello server, 32 connections. Target >= 0.5.
 * - Added latency at 1 connection (p50 gateway - p50 bare) over the p50 of a bare
 *   NATS request/reply round trip from Node. Target <= 2.
 */
export const gatewayBench = async () => {
  const nats = await startTestNats();
  const anvil = await startAnvil({ chainId: 1 });
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-"));
  const chainsConfig = join(dir, "chains.json");
  await writeFile(
    chainsConfig,
    JSON.stringify({
      chains: [
        {
          chain_id: 1,
          name: "ethereum",
          rpc_url: anvil.rpcUrl,
          tags: ["default"],
          native: { symbol: "ETH", name: "Ether", decimals: 18 },
        },
      ],
    }),
  );
  const benchNats = JSON.stringify({ url: nats.url, credentials: nats.credentials });
  const helloPort = await freePort();
  const servicePort = await freePort();
  const hello = await startChild("bench/servers/hello.ts", { PORT: String(helloPort) });
  const service = await startChild("bench/servers/service.ts", {
    PORT: String(servicePort),
    BENCH_NATS: benchNats,
    CHAINS_CONFIG: chainsConfig,
    DATA_DIR: dir,
  });
  const echo = await startChild("bench/servers/natsEcho.ts", { BENCH_NATS: benchNats });
  const admin = await nats.connectAs("admin");
  const buckets = {
    keys: await Effect.runPromise(openBucket(admin, "keys")),
    teams: await Effect.runPromise(openBucket(admin, "teams")),
  };
  const { key } = await Effect.runPromise(createKey(buckets, "bench"));
  const helloUrl = `http://127.0.0.1:${helloPort}/`;
  const accountUrl = `http://127.0.0.1:${servicePort}/v1/account`;
  const headers = { "x-svc-api-key": key };
  const requester = await nats.connectAs("gateway");

  try {
    // Warm-up: JIT, connection pools, key cache.
    await load(helloUrl, { connections: CONNECTIONS, seconds: 2 });
    await load(accountUrl, { connections: CONNECTIONS, seconds: 2, headers });

    const bare: Array<LoadResult> = [];
    const gateway: Array<LoadResult> = [];
    const bare1: Array<{ p50Ms: number; p99Ms: number }> = [];
    const gateway1: Array<{ p50Ms: number; p99Ms: number }> = [];
    const cpu: Array<Record<string, number>> = [];
    const natsPid = natsServerPid(nats.url);
    const natsRtt: Array<number> = [];
    for (let i = 0; i < REPETITIONS; i++) {
      bare.push(await load(helloUrl, { connections: CONNECTIONS, seconds: SECONDS }));
      const measured = await measureCpu({ service: service.process.pid!, nats: natsPid }, () =>
        load(accountUrl, { connections: CONNECTIONS, seconds: SECONDS, headers }),
      );
      gateway.push(measured.result);
      const requests = measured.result.requestsPerSecond * SECONDS;
      cpu.push(
        Object.fromEntries(
          Object.entries(measured.cpuMs).map(([name, ms]) => [name, (ms * 1000) / requests]),
        ),
      );
      bare1.push(await sequential(helloUrl, SECONDS));
      gateway1.push(await sequential(accountUrl, SECONDS, headers));
      natsRtt.push((await natsRoundTrip(requester, "svc.bench.echo", SECONDS)).p50Ms);
    }
    const failed = gateway.reduce((sum, r) => sum + r.non2xx + r.errors, 0);
    const ratios = bare.map((b, i) => gateway[i]!.requestsPerSecond / b.requestsPerSecond);
    const added = bare1.map((b, i) => gateway1[i]!.p50Ms - b.p50Ms);
    const addedOverNats = added.map((a, i) => a / natsRtt[i]!);
    return {
      name: "gateway",
      lines: [
        `bare node:http, ${CONNECTIONS} conns: ${spread(
          bare.map((r) => r.requestsPerSecond),
          0,
        )} req/s, p50 ${median(bare.map((r) => r.p50Ms))} ms, p99 ${median(bare.map((r) => r.p99Ms))} ms`,
        `gateway -> NATS -> worker (/v1/account), ${CONNECTIONS} conns: ${spread(
          gateway.map((r) => r.requestsPerSecond),
          0,
        )} req/s, p50 ${median(gateway.map((r) => r.p50Ms))} ms, p99 ${median(gateway.map((r) => r.p99Ms))} ms, non-2xx/errors ${failed}`,
        `R_bus (gateway/bare req/s): ${spread(ratios)}  target >= 0.5`,
        `CPU per request (µs): ${["service", "nats", "loadgen"].map((name) => `${name} ${median(cpu.map((c) => c[name]!)).toFixed(0)}`).join(", ")}`,
        `1 conn: bare p50 ${median(bare1.map((r) => r.p50Ms)).toFixed(3)} ms p99 ${median(bare1.map((r) => r.p99Ms)).toFixed(3)} ms; gateway p50 ${median(gateway1.map((r) => r.p50Ms)).toFixed(3)} ms p99 ${median(gateway1.map((r) => r.p99Ms)).toFixed(3)} ms`,
        `bare NATS request/reply from Node, p50: ${spread(natsRtt, 3)} ms`,
        `added latency at 1 conn over NATS round trip: ${spread(addedOverNats)}  target <= 2`,
      ],
      ratios: { rBus: median(ratios), addedOverNats: median(addedOverNats) },
    };
  } finally {
    await Promise.allSettled([hello.stop(), service.stop(), echo.stop()]);
    await anvil.stop();
    await nats.stop();
  }
};
