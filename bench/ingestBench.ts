import { Effect } from "effect";
import { createPublicClient, type PublicClient } from "viem";
import { undiciTransport } from "../src/chains/undiciTransport.js";
import { decodeLogs } from "../src/decoding/index.js";
import { ACTIVITY_KINDS, type ActivityKind } from "../src/devnet/activity/activityKinds.js";
import { runActivityAction } from "../src/devnet/activity/runActivity.js";
import type { ManifestChain } from "../src/devnet/DevnetManifest.js";
import { freePort } from "../src/devnet/freePort.js";
import { fetchLiveBlock } from "../src/ingest/rpc/fetchLiveBlock.js";
import { startTestDevnet } from "../test/support/devnetFixture.js";
import { startTestNats } from "../test/support/natsServer.js";
import { startServiceProcess } from "./lib/benchEnv.js";
import { stampedActivity } from "./lib/minedClock.js";
import { percentile } from "./lib/stats.js";

const BACKLOG_SECONDS = Number(process.env.BENCH_BACKLOG_SECONDS ?? 20);
const LIVE_SECONDS = Number(process.env.BENCH_LIVE_SECONDS ?? 15);
const LIVE_RATE = Number(process.env.BENCH_LIVE_RATE ?? 5);

/** Chain 1's published (by ingestion) and indexed blocks from /healthz, -1 while the service is not answering. */
const chainProgress = async (url: string) => {
  try {
    const health = (await (await fetch(`${url}/healthz`)).json()) as {
      chains?: Array<{ chain_id: number; indexed_block?: number | null; processed_block?: number | null }>;
    };
    const chain = health.chains?.find((c) => c.chain_id === 1);
    return { processed: chain?.processed_block ?? -1, indexed: chain?.indexed_block ?? -1 };
  } catch {
    return { processed: -1, indexed: -1 };
  }
};

/** Chain 1's indexed block from /healthz, or -1 while the service is not answering. */
const indexedBlock = async (url: string) => (await chainProgress(url)).indexed;

/** Devnet activity on one chain for `seconds` (as fast as it goes, or `rate` actions per second): each transaction's block and when it was mined. */
const activity = async (chain: ManifestChain, seconds: number, rate?: number) => {
  const { ctx, minedAt } = stampedActivity(chain);
  const kinds = Object.keys(ACTIVITY_KINDS) as Array<ActivityKind>;
  const mined: Array<{ block: number; at: number }> = [];
  const deadline = Date.now() + seconds * 1000;
  for (let i = 0; Date.now() < deadline; i++) {
    const started = Date.now();
    try {
      for (const receipt of await runActivityAction(ctx, kinds[i % kinds.length]!)) {
        const at = minedAt(receipt.transactionHash);
        if (at !== undefined) mined.push({ block: Number(receipt.blockNumber), at });
      }
    } catch {
      // An action that cannot run yet (a burn before its mint) is skipped.
    }
    if (rate !== undefined)
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 / rate - (Date.now() - started))));
  }
  return mined;
};

/**
 * Issue-4 figures: catching up a backlog of generated activity through the
 * whole pipeline (block, receipts and traces read, published to JetStream,
 * indexed in LevelDB) against a bare fetch-and-decode loop over the same blocks
 * and RPC with the same concurrency (target ratio >= 0.5); and block mined ->
 * indexed at devnet activity rates (target p50 <= 100 ms).
 */
export const ingestBench = async () => {
  const devnet = await startTestDevnet();
  const chain = devnet.manifest.chains.find((c) => c.chain_id === 1)!;
  // The floor reads through the same transport as the service (keep-alive undici, 16 connections).
  const rpc = undiciTransport(chain.rpc_url, { timeoutMs: 10_000, connections: 16 });
  const client = createPublicClient({ transport: rpc.transport }) as PublicClient;
  const nats = await startTestNats();
  const port = await freePort();
  let service = await startServiceProcess(nats, devnet.devnet.chainsConfigPath, { port });
  try {
    const from = (await indexedBlock(service.url)) + 1;
    await service.stop();

    // A backlog of real activity while the service is down, then a restart that catches up.
    await activity(chain, BACKLOG_SECONDS);
    const head = Number(await client.getBlockNumber());
    const logs = (await client.request({
      method: "eth_getLogs",
      params: [{ fromBlock: `0x${from.toString(16)}`, toBlock: `0x${head.toString(16)}` }],
    })) as Array<unknown>;
    const restarting = startServiceProcess(nats, devnet.devnet.chainsConfigPath, {
      port,
      dataDir: service.dataDir,
    });
    let firstAt = 0;
    let firstBlock = 0;
    let lastAt = 0;
    for (;;) {
      const { processed, indexed } = await chainProgress(`http://127.0.0.1:${port}`);
      // Timing starts at the first sign of progress (a block published or indexed); the blocks
      // published before it are left out, while their indexing, if still under way, is counted.
      if (firstAt === 0 && Math.max(processed, indexed) >= from) {
        firstAt = performance.now();
        firstBlock = Math.max(processed, indexed);
      }
      if (indexed >= head) {
        lastAt = performance.now();
        break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    service = await restarting;
    // Only the blocks published after the service answered are timed, on both sides.
    const logsFrom = (block: number) =>
      logs.filter((log) => Number.parseInt((log as { blockNumber: string }).blockNumber, 16) > block).length;
    const timedLogs = logsFrom(firstBlock);
    const pipelinePerSecond = timedLogs / ((lastAt - firstAt) / 1000);

    // The floor: the same blocks fetched (block, receipts, traces) and decoded, nothing else.
    const bareStart = performance.now();
    const decoded = await Effect.runPromise(
      Effect.forEach(
        Array.from({ length: head - firstBlock }, (_, i) => firstBlock + 1 + i),
        (number) =>
          fetchLiveBlock(client, { chainId: 1, number, traces: true }).pipe(
            Effect.map((block) => (block === undefined ? 0 : decodeLogs(block.logs).length)),
          ),
        { concurrency: 8 },
      ),
    );
    const barePerSecond = timedLogs / ((performance.now() - bareStart) / 1000);

    // Block mined -> indexed while activity runs at a steady rate.
    const mined = activity(chain, LIVE_SECONDS, LIVE_RATE);
    const seen = new Map<number, number>();
    let done = false;
    const watcher = (async () => {
      while (!done) {
        const indexed = await indexedBlock(service.url);
        const at = performance.now();
        for (let b = indexed; b > 0 && !seen.has(b); b--) seen.set(b, at);
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const receipts = await mined;
    await new Promise((r) => setTimeout(r, 500));
    done = true;
    await watcher;
    const latencies = receipts
      .map((r) => (seen.get(r.block) ?? Number.NaN) - r.at)
      .filter((ms) => Number.isFinite(ms))
      .map((ms) => Math.max(0, ms))
      .sort((a, b) => a - b);

    return {
      name: "ingest",
      lines: [
        `backlog: ${head - from + 1} blocks, ${logs.length} logs; timed: the last ${head - firstBlock} blocks, ${timedLogs} logs (${decoded.reduce((a, b) => a + b, 0)} decoded events)`,
        `pipeline catch-up (read, publish, index): ${pipelinePerSecond.toFixed(0)} events/s`,
        `bare fetch-and-decode loop, same blocks and concurrency: ${barePerSecond.toFixed(0)} events/s`,
        `R_ingest (pipeline / bare): ${(pipelinePerSecond / barePerSecond).toFixed(2)}  target >= 0.8`,
        `block mined -> indexed at ${LIVE_RATE} actions/s, ${latencies.length} blocks: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms  target p50 <= 100`,
      ],
    };
  } finally {
    await service.stop();
    await rpc.close();
    await nats.stop();
    await devnet.stop();
  }
};
