import { jetstreamManager } from "@nats-io/jetstream";
import type { ChainRpc } from "../src/chains/rpc/ChainRpc.js";
import { ACTIVITY_KINDS, type ActivityKind } from "../src/devnet/activity/activityKinds.js";
import { runActivityAction } from "../src/devnet/activity/runActivity.js";
import type { ManifestChain } from "../src/devnet/DevnetManifest.js";
import { NOTIFIER_DURABLE } from "../src/webhooks/notifier/Notifier.js";
import { directChainRpc } from "../test/support/chainRpc.js";
import { startTestDevnet } from "../test/support/devnetFixture.js";
import { startTestNats, type TestNats } from "../test/support/natsServer.js";
import { anvilPid } from "./lib/anvilPid.js";
import {
  ARRANGEMENT_NAMES,
  type Arrangement,
  chainProgress,
  type Deployment,
  parseArrangements,
  startDeployment,
  stopIngestion,
} from "./lib/arrangements.js";
import { coldFetchAndDecode } from "./lib/coldFloor.js";
import { measureCpu } from "./lib/cpu.js";
import { blockRange, fetchAndDecode } from "./lib/fetchAndDecode.js";
import { stampedActivity } from "./lib/minedClock.js";
import { natsServerPid } from "./lib/natsServerPid.js";
import { messagesPer, natsMessages } from "./lib/natsTraffic.js";
import { percentile } from "./lib/stats.js";

const BACKLOG_SECONDS = Number(process.env.BENCH_BACKLOG_SECONDS ?? 20);
const LIVE_SECONDS = Number(process.env.BENCH_LIVE_SECONDS ?? 15);
const LIVE_RATE = Number(process.env.BENCH_LIVE_RATE ?? 5);

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

const ARRANGEMENTS = parseArrangements(process.env.BENCH_INGEST_ARRANGEMENTS ?? "split,one");

/** Chain events the webhook notifier's shared consumer has not had acknowledged yet. */
const notifierBacklog = async (nats: TestNats) => {
  const nc = await nats.connectAs("api");
  try {
    const info = await (await jetstreamManager(nc)).consumers
      .info("CHAIN_EVENTS", NOTIFIER_DURABLE)
      // None while nothing is watched: the notifier let it go, and no block waits for it.
      .catch(() => undefined);
    return info === undefined ? 0 : info.num_pending + info.num_ack_pending;
  } finally {
    await nc.close();
  }
};

/** Waits until the notifier has planned every chain event in the stream (it is not what is timed). */
const notifierPlannedAll = async (nats: TestNats) => {
  const deadline = performance.now() + 300_000;
  for (let behind = await notifierBacklog(nats); behind > 0; behind = await notifierBacklog(nats)) {
    if (performance.now() > deadline)
      throw new Error(`the notifier still had ${behind} chain events to plan`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

/**
 * One catch-up: the service runs as `arrangement`; the processes that follow the chain (the whole
 * service, or the ingest process alone) are stopped, a backlog of activity is mined, and from their
 * restart the pipeline is timed until the backlog is indexed; then a bare fetch-and-decode loop over
 * the same blocks. Returns the figures and the deployment, still running.
 */
const catchUp = async (
  arrangement: Arrangement,
  context: { nats: TestNats; chainsConfig: string; chain: ManifestChain; client: ChainRpc },
) => {
  const { nats, chainsConfig, chain, client } = context;
  const first = await startDeployment(nats, chainsConfig, arrangement);
  const from = (await indexedBlock(first.url)) + 1;
  // The notifier plans the devnet's whole history (every chain's blocks) once, one event at a time,
  // after the first start. Left unfinished, the restarted process went on with it during the
  // catch-up: its API connection sent 7.7 NATS messages per backlog block rather than 2.0.
  await notifierPlannedAll(nats);
  const ingestion = await stopIngestion(nats, chainsConfig, first);

  // A backlog of real activity while ingestion is down, then a restart that catches up.
  await activity(chain, BACKLOG_SECONDS);
  const head = Number.parseInt(await client.request<string>("eth_blockNumber", []), 16);
  const logs = await client.request<Array<unknown>>("eth_getLogs", [
    { fromBlock: `0x${from.toString(16)}`, toBlock: `0x${head.toString(16)}` },
  ]);
  const anvil = anvilPid(chain.rpc_url);
  // anvil's first read of a block's trace costs it about twice its later ones (its own state
  // handling: 5.0 against 2.6 ms of its CPU per block, and half the blocks/s, over the same 535
  // blocks read four times). The pipeline would always pay the first read and the floor, reading
  // after it, the cheaper one, so the backlog is read once before either is timed.
  const warmUp = await measureCpu(anvil === undefined ? {} : { anvil }, async () => {
    const started = performance.now();
    await fetchAndDecode(client, blockRange(from, head));
    return performance.now() - started;
  });
  const metricsUrl = (p: { metricsPort: number }) => `http://127.0.0.1:${p.metricsPort}/metrics`;
  // The processes kept running have counted traffic before; the restarted ones start from nothing.
  const natsBefore = new Map(
    await Promise.all(
      first.processes
        .filter((p) => !p.restarted)
        .map(async (p) => [p.name, await natsMessages(metricsUrl(p))] as const),
    ),
  );
  const { firstAt, firstBlock, lastAt, cpuMs, deployment } = await ingestion.restart(from, head, {
    "nats-server": natsServerPid(nats.url),
    ...(anvil === undefined ? {} : { anvil }),
  });
  // The webhook notifier follows CHAIN_EVENTS on its own consumer: what it has not planned when the
  // index is caught up is work left out of the timed span (its share of the CPU figures varies with it).
  const notifierBehind = await notifierBacklog(nats);
  // Messages per block of the whole backlog, from the restart (start-up and the healthz polls included).
  const natsPerBlock = await Promise.all(
    deployment.processes.map(
      async (p) =>
        `${p.name}: ${messagesPer(natsBefore.get(p.name) ?? new Map(), await natsMessages(metricsUrl(p)), head - from + 1)}`,
    ),
  );
  // Only the blocks published after the service answered are timed, on both sides.
  const timedBlocks = head - firstBlock;
  const timedLogs = logs.filter(
    (log) => Number.parseInt((log as { blockNumber: string }).blockNumber, 16) > firstBlock,
  ).length;
  const pipelinePerSecond = timedLogs / ((lastAt - firstAt) / 1000);

  // The floor: the same blocks fetched (block, receipts, traces) and decoded, nothing else, in a
  // new process as the restarted one is (bench/servers/bareLoop.ts says why); and, for comparison,
  // the same loop warm in this process, which has read these blocks once already.
  const cold = await coldFetchAndDecode(
    chain.rpc_url,
    { untimedFrom: from, from: firstBlock + 1, to: head },
    anvil === undefined ? {} : { anvil },
  );
  const barePerSecond = timedLogs / (cold.ms / 1000);
  const warmStart = performance.now();
  const warmCpu = process.cpuUsage();
  await fetchAndDecode(client, blockRange(firstBlock + 1, head));
  const warmCpuUsed = process.cpuUsage(warmCpu);
  const warmPerSecond = timedLogs / ((performance.now() - warmStart) / 1000);
  const perBlock = (ms: number) => `${((ms / timedBlocks) * 1000).toFixed(0)} µs`;
  const cpuParts = Object.entries(cpuMs).map(([name, ms]) => `${name} ${perBlock(ms)}`);
  const ratio = pipelinePerSecond / barePerSecond;
  const label = ARRANGEMENT_NAMES[arrangement];
  return {
    service: deployment,
    ratio,
    lines: [
      `[${label}] backlog: ${head - from + 1} blocks, ${logs.length} logs; timed: the last ${timedBlocks} blocks, ${timedLogs} logs (${cold.events} decoded events)`,
      `[${label}] the backlog's first read (untimed, before both): ${((head - from + 1) / (warmUp.result / 1000)).toFixed(0)} blocks/s, anvil ${anvil === undefined ? "?" : `${(((warmUp.cpuMs.anvil ?? 0) / (head - from + 1)) * 1000).toFixed(0)} µs`} per block`,
      `[${label}] pipeline catch-up (read, publish, index): ${pipelinePerSecond.toFixed(0)} events/s, ${(timedBlocks / ((lastAt - firstAt) / 1000)).toFixed(0)} blocks/s`,
      `[${label}] bare fetch-and-decode loop in a new process, same blocks and concurrency: ${barePerSecond.toFixed(0)} events/s`,
      `[${label}] R_ingest (pipeline / bare, both processes new): ${ratio.toFixed(2)}  target >= 0.8`,
      `[${label}] the same loop warm (in the benchmark's process, its second read of the blocks): ${warmPerSecond.toFixed(0)} events/s; pipeline / warm loop ${(pipelinePerSecond / warmPerSecond).toFixed(2)}`,
      `[${label}] webhook notifier when the index caught up: ${notifierBehind} chain events not yet planned`,
      `[${label}] NATS messages per block from the restart, per process and connection: ${natsPerBlock.join("; ")}`,
      `[${label}] CPU per block while catching up: ${cpuParts.join(", ")}; bare loop new ${perBlock(cold.cpuMs)} (anvil ${perBlock(cold.othersCpuMs.anvil ?? Number.NaN)}), warm ${perBlock((warmCpuUsed.user + warmCpuUsed.system) / 1000)}`,
    ],
  };
};

/**
 * Issue-4 figures: catching up a backlog of generated activity through the
 * whole pipeline (block, receipts and traces read, published to JetStream,
 * indexed in LevelDB) against a bare fetch-and-decode loop over the same blocks
 * and RPC with the same concurrency, for each arrangement of processes
 * (`BENCH_INGEST_ARRANGEMENTS`, default `split,one`), with each process's CPU
 * per block; then block mined -> indexed at devnet activity rates (target p50
 * <= 100 ms) on the last arrangement's service.
 */
export const ingestBench = async () => {
  /** One arrangement's devnet, NATS and service, each set once started (a failed start stops the others). */
  type Stage = {
    devnet?: Awaited<ReturnType<typeof startTestDevnet>>;
    nats?: TestNats;
    chain?: ManifestChain;
    rpc?: ReturnType<typeof directChainRpc>;
    service?: Deployment;
  };
  const stop = async (stage: Stage | undefined) => {
    await stage?.service?.stop();
    await stage?.rpc?.close();
    await stage?.nats?.stop();
    await stage?.devnet?.stop();
  };
  let stage: Stage | undefined;
  try {
    const lines: Array<string> = [];
    for (const arrangement of ARRANGEMENTS) {
      await stop(stage);
      // Each arrangement on a devnet and NATS of its own: anvil grows slower to trace as a run mines
      // on (after the first arrangement, the second's backlog was read at 87 blocks/s with 11.3 ms of
      // anvil's CPU per block, against 248 and 3.6 ms for the first), so the two were not comparable.
      stage = {};
      const devnet = await startTestDevnet();
      stage.devnet = devnet;
      const chain = devnet.manifest.chains.find((c) => c.chain_id === 1)!;
      stage.chain = chain;
      // The floor reads through the same transport as the service (keep-alive undici, 16 connections).
      const rpc = directChainRpc(chain.rpc_url, { chainId: 1 });
      stage.rpc = rpc;
      const nats = await startTestNats();
      stage.nats = nats;
      const client = rpc.rpc;
      const run = await catchUp(arrangement, {
        nats,
        chainsConfig: devnet.devnet.chainsConfigPath,
        chain,
        client,
      });
      stage.service = run.service;
      lines.push(...run.lines);
    }
    const service = stage?.service;
    const chain = stage?.chain;
    if (service === undefined || chain === undefined)
      throw new Error("BENCH_INGEST_ARRANGEMENTS names no arrangement (one, split)");
    const live = service;

    // Block mined -> indexed while activity runs at a steady rate.
    const mined = activity(chain, LIVE_SECONDS, LIVE_RATE);
    const seen = new Map<number, number>();
    let done = false;
    const watcher = (async () => {
      while (!done) {
        const indexed = await indexedBlock(live.url);
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
    lines.push(
      `[${ARRANGEMENT_NAMES[ARRANGEMENTS.at(-1)!]}] block mined -> indexed at ${LIVE_RATE} actions/s, ${latencies.length} blocks: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms  target p50 <= 100`,
    );
    return { name: "ingest", lines };
  } finally {
    await stop(stage);
  }
};
