import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect } from "effect";
import type { KeyBuckets } from "../../src/api/keys/KeyStore.js";
import { type LocalCluster, startLocalCluster } from "../../src/cluster/LocalCluster.js";
import { type AnvilInstance, startAnvil } from "../../src/devnet/AnvilProcess.js";
import { MULTICALL3_ADDRESS, MULTICALL3_RUNTIME_CODE } from "../../src/devnet/multicall3.js";
import { openBucket } from "../../src/nats/JetStreamSetup.js";
import { writeChainsFile } from "./serviceHarness.js";
import { LOCAL_RECEIVER_ENV } from "./webhookEnv.js";

/** A three-node NATS cluster with two gateway+api processes and one ingest process, against one anvil chain. */
export interface ClusterFixture {
  readonly cluster: LocalCluster;
  readonly anvil: AnvilInstance;
  /** The `admin` user's key and team buckets, over the cluster. */
  readonly buckets: KeyBuckets;
  readonly stop: () => Promise<void>;
}

/**
 * Starts the fixture the fault tests share (one per test file: starting three
 * servers and three service processes costs tens of seconds of CPU). Webhooks
 * may target 127.0.0.1 over http and retry quickly, so deliveries are observable.
 */
export const startClusterFixture = async (): Promise<ClusterFixture> => {
  const dir = await mkdtemp(join(tmpdir(), "svc-cluster-"));
  const anvil = await startAnvil({ chainId: 1 });
  // Balances are read through Multicall3, which a bare anvil chain lacks.
  await fetch(anvil.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "anvil_setCode",
      params: [MULTICALL3_ADDRESS, MULTICALL3_RUNTIME_CODE],
    }),
  });
  const chainsConfig = await writeChainsFile(dir, [{ chainId: 1, name: "ethereum", rpcUrl: anvil.rpcUrl }]);
  const cluster = await startLocalCluster({
    dir,
    chainsConfig,
    env: {
      LOG_LEVEL: "warning",
      ...LOCAL_RECEIVER_ENV,
      RATE_LIMIT_RPS: "100000",
      RATE_LIMIT_BURST: "100000",
      // A request whose worker died is answered 504 after this long; the failover gap is measured with it.
      REQUEST_TIMEOUT_MS: "3000",
    },
  });
  const admin = await cluster.connectAs("admin");
  const buckets = {
    keys: await Effect.runPromise(openBucket(admin, "keys")),
    teams: await Effect.runPromise(openBucket(admin, "teams")),
  };
  return {
    cluster,
    anvil,
    buckets,
    stop: async () => {
      await admin.close().catch(() => undefined);
      await cluster.stop();
      await anvil.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
};

/** One request of a load run: when it started (ms since the run began), how long it took, and its status (0: no answer). */
export interface LoadSample {
  readonly at: number;
  readonly ms: number;
  readonly status: number;
}

/**
 * A load generator in this process: `concurrency` loops sending GET `path`
 * round-robin to the given base URLs until `stop()`, recording every request.
 */
export const startLoad = (urls: () => ReadonlyArray<string>, path: string, key: string, concurrency = 8) => {
  const samples: Array<LoadSample> = [];
  const began = performance.now();
  let running = true;
  let turn = 0;
  const loop = async () => {
    while (running) {
      const list = urls();
      const url = list[turn++ % list.length];
      const at = performance.now() - began;
      const status = await fetch(`${url}${path}`, {
        headers: { "X-Svc-Api-Key": key },
        signal: AbortSignal.timeout(10_000),
      }).then(
        async (response) => {
          await response.arrayBuffer();
          return response.status;
        },
        () => 0,
      );
      samples.push({ at, ms: performance.now() - began - at, status });
    }
  };
  const loops = Array.from({ length: concurrency }, loop);
  return {
    samples,
    /** Milliseconds since the run began. */
    now: () => performance.now() - began,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return samples;
    },
  };
};

/**
 * The failover gap of a load run: from the start of the first failing request
 * to the end of the last one (0 when none failed), how many failed, and over
 * how long the failing requests were started (near 0 when only those in flight
 * at the fault failed, each after its timeout, and every later one succeeded).
 */
export const failoverGap = (samples: ReadonlyArray<LoadSample>) => {
  const failed = samples.filter((s) => s.status !== 200);
  if (failed.length === 0) return { gapMs: 0, failed: 0, startedOverMs: 0 };
  const first = Math.min(...failed.map((s) => s.at));
  const last = Math.max(...failed.map((s) => s.at + s.ms));
  const lastStart = Math.max(...failed.map((s) => s.at));
  return {
    gapMs: Math.round(last - first),
    failed: failed.length,
    startedOverMs: Math.round(lastStart - first),
  };
};
