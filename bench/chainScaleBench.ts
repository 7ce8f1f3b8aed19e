import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type JetStreamManager, jetstreamManager } from "@nats-io/jetstream";
import { blockSubject } from "../src/ingest/BlockPublisher.js";
import { levelPath } from "../src/storage/dataDirDb.js";
import { startTestNats, type TestNats } from "../test/support/natsServer.js";
import { parseSamples, sampleValue } from "../test/support/prometheusText.js";
import { writeChainsFile } from "../test/support/serviceHarness.js";
import { callerFor, WEBHOOKS } from "../test/support/webhookEnv.js";
import { startReceiver } from "../test/support/webhookReceiver.js";
import { chainProgress, startDeployment } from "./lib/arrangements.js";
import { benchKey } from "./lib/benchEnv.js";
import { blockMessageLines } from "./lib/blockMessages.js";
import { coldFetchAndDecode } from "./lib/coldFloor.js";
import { cpuNow, processRunMs, threadRunMs, threadsBetween } from "./lib/cpu.js";
import { directoryBytes } from "./lib/directoryBytes.js";
import { natsServerPid } from "./lib/natsServerPid.js";
import { percentile, spread } from "./lib/stats.js";
import { BASE, type ChainProfile, FIREHOSE, MAINNET } from "./replay/chainProfiles.js";
import { type ReplayNode, startReplayNode } from "./replay/replayNode.js";
import { castWallets } from "./replay/syntheticChain.js";

/** How long the Base-profile run keeps up (the issue's figure is 10 minutes; 0 skips it). */
const KEEP_UP_SECONDS = Number(process.env.BENCH_CHAIN_SCALE_SECONDS ?? 600);
/** Blocks the firehose serves with every process together. */
const FIREHOSE_BLOCKS = Number(process.env.BENCH_FIREHOSE_BLOCKS ?? 4_000);
/**
 * Rounds of the firehose with each stage on its own, each followed by the bare loop over the same
 * blocks, and the blocks of each: between runs this machine moved a stage's CPU per block by up to
 * 45 % and the bare loop's by 2x, so R_ingest is the median of rounds whose two sides ran minutes
 * apart at most.
 */
const APART_ROUNDS = Number(process.env.BENCH_FIREHOSE_ROUNDS ?? 7);
const ROUND_BLOCKS = Number(process.env.BENCH_FIREHOSE_ROUND_BLOCKS ?? 1_500);
/**
 * The chain's `index_wallets` (ChainsConfig) for each firehose, in order: `all` (the default) records
 * every wallet's token touches, `discovered` only those of wallets discovery met (none in the
 * firehose: nothing asks about its wallets). The keep-up run and the growth on mainnet-sized blocks
 * use the first.
 */
const INDEX_WALLETS = (process.env.BENCH_CHAIN_SCALE_INDEX_WALLETS ?? "all,discovered")
  .split(",")
  .map((mode) => mode.trim())
  .filter((mode) => mode !== "");
/** Mainnet-sized blocks indexed to measure the index's growth (0 skips it). */
const MAINNET_GROWTH_BLOCKS = Number(process.env.BENCH_MAINNET_GROWTH_BLOCKS ?? 300);
const CHAIN_ID = 8453;
const FIRST_BLOCK = 30_000_000;
const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const gb = (bytes: number) => (bytes / 1024 ** 3).toFixed(2);

/**
 * Wallets of the synthetic chain a `transactions` webhook watches while the Base profile runs (about
 * 2.4 of a block's 60 transactions involve one). Discovering them runs at a few wallets a second.
 */
const WATCHED_WALLETS = Number(process.env.BENCH_CHAIN_SCALE_WATCHED ?? 1_000);
/** How long the keep-up run waits for the watched wallets' discovery before it starts timing. */
const DISCOVERY_WAIT_MS = 15 * 60_000;

/**
 * A receiver of a `transactions` webhook watching WATCHED_WALLETS of the synthetic chain's 50,000
 * wallets: the newest block delivered so far.
 */
const watchWallets = async (service: { readonly url: string; readonly nats: TestNats }) => {
  const receiver = await startReceiver();
  let newest = 0;
  const call = callerFor(service.url, await benchKey(service.nats, "bench-chain-scale"));
  const created = await call("POST", WEBHOOKS, {
    name: "chain-scale",
    url: receiver.url,
    type: "transactions",
    addresses: castWallets(WATCHED_WALLETS),
  });
  if (created.status !== 200) throw new Error(`webhook not created: ${created.status} ${created.text}`);
  const newestDelivered = () => {
    for (const request of receiver.received.splice(0))
      for (const tx of request.json.transactions ?? []) newest = Math.max(newest, Number(tx.block_number));
    return newest;
  };
  return { newestDelivered, stop: receiver.stop };
};

type SplitService = Awaited<ReturnType<typeof startSplitService>>;

/** A service as two processes (ingest; gateway and API) on the replay node's chain. */
const startSplitService = async (
  nodeUrl: string,
  extra: Record<string, unknown> = { index_wallets: INDEX_WALLETS[0] },
) => {
  const nats = await startTestNats();
  const dir = await mkdtemp(join(tmpdir(), "svc-chain-scale-"));
  const chainsConfig = await writeChainsFile(dir, [
    { chainId: CHAIN_ID, name: "base", rpcUrl: nodeUrl, extra },
  ]);
  const deployment = await startDeployment(nats, chainsConfig, "split", {
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOWED_HOSTS: "127.0.0.0/8",
    WEBHOOK_MAX_ADDRESSES_PER_CALL: String(WATCHED_WALLETS),
  });
  const pids: Record<string, number> = {
    ...Object.fromEntries(deployment.processes.map((p) => [p.name, p.pid])),
    nats: natsServerPid(nats.url),
  };
  const api = deployment.processes.find((p) => p.name === "api")!;
  const apiDataDir = api.dataDir;
  let reader: JetStreamManager | undefined;
  return {
    url: deployment.url,
    nats,
    /**
     * The message id of the chain's newest block message in CHAIN_EVENTS, asked of nats-server: ingest
     * is timed while it publishes, and its own metrics, polled every 50 ms, cost it about 4 % of the
     * CPU it spent in the rounds (the API process may be stopped, so it cannot be asked).
     */
    newestPublishedId: async () => {
      reader ??= await jetstreamManager(await nats.connectAs("api"));
      // null while the subject has no message; a refused or failed read throws, not waits.
      const newest = await reader.streams.getMessage("CHAIN_EVENTS", {
        last_by_subj: blockSubject(CHAIN_ID),
      });
      return newest?.header.get("Nats-Msg-Id") ?? "";
    },
    /** Stops the API process (SIGSTOP) until `resumeApi`: it takes no CPU meanwhile. */
    pauseApi: () => process.kill(api.pid, "SIGSTOP"),
    resumeApi: () => process.kill(api.pid, "SIGCONT"),
    /** Wallets the API worker is still discovering (sweeping or scanning), and those it has done. */
    discoveries: async () => {
      const samples = parseSamples(await (await fetch(`http://127.0.0.1:${api.metricsPort}/metrics`)).text());
      const count = (state: string) => sampleValue(samples, "svc_wallet_discoveries", { state });
      return { running: count("sweeping") + count("scanning"), done: count("complete") + count("failed") };
    },
    /** Bytes of the API worker's LevelDB (its index) on disk. */
    indexBytes: () => directoryBytes(levelPath(apiDataDir)),
    cpu: () => cpuNow(pids),
    /** CPU ms of each thread name of the ingest and API processes (the main thread as `main`). */
    threads: () => ({ ingest: processRunMs(pids.ingest!).byName, api: processRunMs(pids.api!).byName }),
    /**
     * CPU ms of each of the API process's threads other than its main one, by thread id: Node names
     * them all `node`, and the busiest one is LevelDB's compaction thread (the last one made, in every
     * run checked against /proc), which `threads` lumps in with V8's and libuv's.
     */
    apiOtherThreads: () => {
      const { [String(pids.api!)]: _main, ...others } = threadRunMs(pids.api!);
      return others;
    },
    /**
     * Waits until the API process is quiet: under 2 % of a core over half a second (a minute at
     * most; false if it never was). LevelDB compacts in the background once a batch's writes call
     * for it; waited for at both ends of the API stage, a round is not charged the compaction left by
     * the blocks before it (the firehose's 4,000, indexed while ingest took the other core), and is
     * charged what its own blocks set off while it ran. Writes still in the memtable are compacted
     * later, in whichever round fills it.
     */
    apiQuiet: async (): Promise<boolean> => {
      const deadline = Date.now() + 60_000;
      let last = processRunMs(pids.api!).all;
      while (Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const now = processRunMs(pids.api!).all;
        // A thread that ended between readings takes its time with it: not taken for quiet.
        if (now >= last && now - last < 10) return true;
        last = now;
      }
      return false;
    },
    stop: async () => {
      await deployment.stop();
      await nats.stop();
    },
  };
};

/** The Base profile for KEEP_UP_SECONDS: head-to-indexed lag and CPU per block and per transaction. */
const keepUp = async (lines: Array<string>) => {
  lines.push(
    `-- 2. keeping up with the base profile for ${KEEP_UP_SECONDS} s (ingest and gateway+api processes)`,
  );
  const node = await startReplayNode({
    profile: BASE,
    chainId: CHAIN_ID,
    firstBlock: FIRST_BLOCK,
    backlog: 1,
  });
  const service = await startSplitService(node.url);
  try {
    const deadline = Date.now() + 60_000;
    while ((await chainProgress(service.url, CHAIN_ID)).indexed < node.head() - 10) {
      if (Date.now() > deadline) throw new Error("the index never reached the replay node's head");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const watched = await watchWallets(service);
    while (watched.newestDelivered() === 0) {
      if (Date.now() > deadline) throw new Error("the webhook had no delivery within a minute");
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // A webhook's new wallets are discovered from the chain (their balances swept, their logs
    // scanned): a one-off cost, timed apart, so the figures below are those of following the chain.
    const discoveryStarted = performance.now();
    const requestsBefore = node.stats().requests;
    let discovered = 0;
    for (;;) {
      const { running, done } = await service.discoveries();
      discovered = done;
      if (running === 0 && done >= WATCHED_WALLETS) break;
      if (performance.now() - discoveryStarted > DISCOVERY_WAIT_MS) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const discoverySeconds = (performance.now() - discoveryStarted) / 1000;
    lines.push(
      `discovering the ${WATCHED_WALLETS.toLocaleString("en-US")} watched wallets (balances swept, logs scanned): ${discovered.toLocaleString("en-US")} done in ${discoverySeconds.toFixed(0)} s (${(discovered / discoverySeconds).toFixed(1)} a second), ${(node.stats().requests - requestsBefore).toLocaleString("en-US")} requests to the node` +
        (discovered >= WATCHED_WALLETS
          ? ", before the timed run"
          : "; not finished, so the timed run's API CPU includes the rest of it"),
    );
    const startHead = node.head();
    const indexBefore = await service.indexBytes();
    const cpuBefore = service.cpu();
    const indexedLag: Array<number> = [];
    const processedLag: Array<number> = [];
    const notifiedLag: Array<number> = [];
    const until = Date.now() + KEEP_UP_SECONDS * 1000;
    while (Date.now() < until) {
      const health = await chainProgress(service.url, CHAIN_ID);
      const head = node.head();
      indexedLag.push(head - health.indexed);
      processedLag.push(head - health.processed);
      notifiedLag.push(head - watched.newestDelivered());
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await watched.stop();
    const blocks = node.head() - startHead;
    const cpuAfter = service.cpu();
    lines.push(indexGrowthLine(BASE, blocks, (await service.indexBytes()) - indexBefore));
    const sorted = (values: Array<number>) => [...values].sort((a, b) => a - b);
    const lag = (values: Array<number>) => {
      const s = sorted(values);
      return `p50 ${percentile(s, 50)}, p99 ${percentile(s, 99)}, max ${s.at(-1)} blocks (x${BASE.blockTimeMs} ms)`;
    };
    lines.push(
      `head to indexed: ${lag(indexedLag)}; head to processed by ingest: ${lag(processedLag)}; head to the newest block delivered to a webhook watching ${WATCHED_WALLETS.toLocaleString("en-US")} wallets: ${lag(notifiedLag)}; ${indexedLag.length} samples, ${blocks} blocks`,
    );
    const perBlock = Object.entries(cpuAfter).map(([name, ms]) => {
      const used = ms - cpuBefore[name]!;
      return `${name} ${(used / blocks).toFixed(2)} ms a block, ${((1000 * used) / (blocks * BASE.txPerBlock)).toFixed(0)} µs a tx, ${((100 * used) / (KEEP_UP_SECONDS * 1000)).toFixed(0)}% of a core`;
    });
    lines.push(`CPU: ${perBlock.join("; ")}`);
    const served = node.stats();
    lines.push(
      `the replay node answered ${served.requests} requests (${(served.bytes / 1024 ** 2).toFixed(0)} MB)`,
    );
  } finally {
    await service.stop();
    await node.stop();
  }
};

/** The index's growth over `blocks` blocks of `profile`, per block and per day. */
const indexGrowthLine = (profile: ChainProfile, blocks: number, bytes: number) => {
  const perBlock = bytes / blocks;
  return `${profile.name} index (the API worker's LevelDB): ${kb(perBlock)} KB a block over ${blocks} blocks, ${gb((perBlock * 86_400_000) / profile.blockTimeMs)} GB a day`;
};

/**
 * A service at the head of a replay node of `profile` whose next `blocks` blocks are made but not
 * shown yet; `use` releases them (node.release) when it wants. Stops both after `use`.
 */
const withHeldBlocks = async <A>(
  profile: ChainProfile,
  blocks: number,
  use: (node: ReplayNode, service: SplitService) => Promise<A>,
  /**
   * The most blocks `use` reads after releasing them, when more than `blocks`: the node keeps that
   * many of the newest (twice, for a branch beside each), made once. Older ones are dropped: a
   * firehose's rounds release 1,500 blocks each, and keeping every round's made the benchmark's own
   * heap pass 4 GB at 7 rounds. A dropped block asked again is made again, the same.
   */
  window = blocks,
  indexWallets = INDEX_WALLETS[0],
): Promise<A> => {
  const node = await startReplayNode({
    profile,
    chainId: CHAIN_ID,
    firstBlock: FIRST_BLOCK,
    backlog: 2,
    keep: 2 * window + 16,
  });
  const service = await startSplitService(node.url, { index_wallets: indexWallets });
  try {
    await indexedUpTo(service, node.head());
    return await use(node, service);
  } finally {
    await service.stop();
    await node.stop();
  }
};

/**
 * Waits until the service's index holds block `last` (10 minutes at most), asking its `/healthz`
 * every `pollMs`: a timed rate wants them close, a timed CPU few (each is the API process's work).
 */
const indexedUpTo = async (service: SplitService, last: number, pollMs = 50) => {
  const deadline = Date.now() + 600_000;
  while ((await chainProgress(service.url, CHAIN_ID)).indexed < last) {
    if (Date.now() > deadline) throw new Error(`block ${last} was not indexed within 10 minutes`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
};

/** Mainnet-sized blocks (MAINNET_GROWTH_BLOCKS, shown at once) indexed: how much the index grows per day of them. */
const mainnetGrowth = (lines: Array<string>) =>
  withHeldBlocks({ ...MAINNET, blockTimeMs: 0 }, MAINNET_GROWTH_BLOCKS, async (node, service) => {
    lines.push(`-- 2b. index growth on mainnet-sized blocks (${MAINNET_GROWTH_BLOCKS} blocks)`);
    const before = await service.indexBytes();
    node.release(MAINNET_GROWTH_BLOCKS);
    await indexedUpTo(service, node.head());
    lines.push(indexGrowthLine(MAINNET, MAINNET_GROWTH_BLOCKS, (await service.indexBytes()) - before));
  });

/**
 * Blocks `from`..`to` read as the bare loop of the ingest benchmarks does (block and receipts, 8 at
 * a time) and decoded, in a process of its own (bench/servers/bareLoop.ts) after it has read
 * `untimedFrom`..`from - 1` to warm up, as the stages had: blocks/s, and its CPU per block. In this
 * process its CPU would include the replay node's, which answers it.
 */
const bareLoop = async (
  url: string,
  untimedFrom: number,
  from: number,
  to: number,
  loop: Parameters<typeof coldFetchAndDecode>[4] = {},
) => {
  const run = await coldFetchAndDecode(
    url,
    { untimedFrom, from, to },
    {},
    { chainId: CHAIN_ID, traces: false },
    loop,
  );
  const blocks = to - from + 1;
  return { rate: blocks / (run.ms / 1000), cpuMsPerBlock: run.cpuMs / blocks };
};

/**
 * The same blocks read as the bare loop reads them, then encoded and published to CHAIN_EVENTS of a
 * NATS server of the benchmark's own, as ingest publishes them, and nothing else
 * (bench/servers/encodeLoop.ts): the least CPU per block an ingest of this message format spends.
 */
const encodeLoop = (nats: TestNats, url: string, untimedFrom: number, from: number, to: number) =>
  bareLoop(url, untimedFrom, from, to, {
    script: "bench/servers/encodeLoop.ts",
    env: { BENCH_NATS: JSON.stringify({ url: nats.url, credentials: nats.credentials }) },
  });

/**
 * Waits until ingest has published block `last` of `node` (10 minutes at most): blocks are published
 * in order, so until then the newest message is an earlier block's. Its id is `<chain>:<hash>`, with
 * `~<epoch>` after a reorg; the parts of a split block have ids of their own (`<chain>:<hash>:…`),
 * so one of them does not end the wait.
 */
const publishedUpTo = async (node: ReplayNode, service: SplitService, last: number) => {
  const deadline = Date.now() + 600_000;
  const id = `${CHAIN_ID}:${node.block(last).hash}`;
  const isLast = (newest: string) => newest === id || newest.startsWith(`${id}~`);
  while (!isLast(await service.newestPublishedId())) {
    if (Date.now() > deadline) throw new Error(`block ${last} was not published within 10 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/**
 * Each stage's CPU per block with a core of its own: `blocks` more blocks are released while
 * the API process is stopped, so ingest publishes them with only the node and nats-server beside it;
 * then the API process is let go and indexes them from the stream while ingest idles. Run together on
 * this machine's two cores, the stages and the node take each other's cache and cores, and their
 * CPU per block grows with it; the bare loop, too, runs with only the node beside it.
 */
const stagesApart = async (node: ReplayNode, service: SplitService, blocks: number) => {
  // Stopped, its compaction stops too: it is let finish what earlier blocks left first.
  const quietBefore = await service.apiQuiet();
  service.pauseApi();
  try {
    const from = node.head() + 1;
    node.release(blocks);
    const last = node.head();
    const before = service.cpu();
    const threadsBefore = service.threads();
    await publishedUpTo(node, service, last);
    const published = service.cpu();
    const threadsPublished = service.threads();
    const othersPublished = service.apiOtherThreads();
    const publishedAt = performance.now();
    service.resumeApi();
    // Its CPU is what is timed, not when it ends: four polls a second rather than twenty.
    await indexedUpTo(service, last, 250);
    const quietAfter = await service.apiQuiet();
    const indexed = service.cpu();
    const indexedAt = performance.now();
    const threadsIndexed = service.threads();
    // The busiest of the API process's other threads while it indexed: one made meanwhile counts
    // from 0, one that ended is left out.
    const othersIndexed = service.apiOtherThreads();
    const busiestOther = Math.max(
      0,
      ...Object.entries(othersIndexed).map(([tid, ms]) => ms - (othersPublished[tid] ?? 0)),
    );
    /** A stage's CPU per block by thread name, largest first. */
    const byThread = (from: Record<string, number>, to: Record<string, number>) =>
      Object.entries(threadsBetween(from, to))
        .map(([name, ms]) => [name, ms / blocks] as const)
        // A thread that ended between the readings leaves its name's figure short, even below 0.
        .filter(([, ms]) => Math.abs(ms) >= 0.01)
        .sort((a, b) => b[1] - a[1])
        .map(([name, ms]) => `${name} ${ms.toFixed(2)}`)
        .join(", ");
    return {
      from,
      last,
      ingest: (published.ingest! - before.ingest!) / blocks,
      api: (indexed.api! - published.api!) / blocks,
      // What else ran while the API stage was timed (ms of CPU a second, over 10: a core's percent):
      // the stage is "on its own" only if this is small.
      besideApi: Object.entries(indexed)
        .filter(([name]) => name !== "api")
        .map(
          ([name, ms]) =>
            `${name} ${((ms - published[name]!) / ((indexedAt - publishedAt) / 1000) / 10).toFixed(0)} %`,
        )
        .join(", "),
      // A round whose API process never went quiet around it carries other blocks' compaction.
      quiet: quietBefore && quietAfter,
      threads: `ingest ${byThread(threadsBefore.ingest, threadsPublished.ingest)}; api ${byThread(threadsPublished.api, threadsIndexed.api)} (the busiest of its \`node\` threads: ${(busiestOther / blocks).toFixed(2)})`,
    };
  } finally {
    service.resumeApi();
  }
};

/**
 * FIREHOSE_BLOCKS Base-sized blocks shown at once to a service that was at the head, read as fast as
 * the pipeline can: blocks/s and tx/s from their release until the last is indexed, against the bare
 * loop reading the same blocks from the same node. Then APART_ROUNDS rounds of ROUND_BLOCKS more,
 * each stage on its own (stagesApart), each followed by the bare loop over that round's blocks (warmed
 * on the blocks before them, as the stages were): R_ingest on one core each, per round and median.
 */
const firehose = (lines: Array<string>, indexWallets: string) =>
  withHeldBlocks(
    FIREHOSE,
    FIREHOSE_BLOCKS,
    async (node, service) => {
      lines.push(
        `-- 3. firehose: ${FIREHOSE_BLOCKS} base-sized blocks shown at once, every one made before it is read; index_wallets ${indexWallets}`,
      );
      const indexBefore = await service.indexBytes();
      const from = node.head() + 1;
      node.release(FIREHOSE_BLOCKS);
      const last = node.head();
      const cpuBefore = service.cpu();
      const started = performance.now();
      await indexedUpTo(service, last);
      const seconds = (performance.now() - started) / 1000;
      const cpuAfter = service.cpu();
      const rate = FIREHOSE_BLOCKS / seconds;
      const bare = await bareLoop(node.url, from, Math.max(from, last - 999), last);
      const perBlock = Object.fromEntries(
        Object.entries(cpuAfter).map(([name, ms]) => [name, (ms - cpuBefore[name]!) / FIREHOSE_BLOCKS]),
      );
      lines.push(
        `indexed ${FIREHOSE_BLOCKS} blocks in ${seconds.toFixed(1)} s: ${rate.toFixed(0)} blocks/s, ${(rate * FIREHOSE.txPerBlock).toFixed(0)} tx/s ` +
          `(${(rate / (1000 / BASE.blockTimeMs)).toFixed(1)}x Base's 5 blocks/s); the bare loop on the same node ${bare.rate.toFixed(0)} blocks/s (its last 1,000)`,
      );
      lines.push(
        `CPU per block, every process together: ${Object.entries(perBlock)
          .map(([name, ms]) => `${name} ${ms.toFixed(2)} ms`)
          .join(", ")}; the bare loop ${bare.cpuMsPerBlock.toFixed(2)} ms`,
      );
      // The issue's setting is one core for each process: there a stage's rate is 1 / its CPU per
      // block, and R_ingest is the slower stage's rate over the bare loop's on one core.
      const ingestR: Array<number> = [];
      const apiR: Array<number> = [];
      // What ingest's stage could reach at best: the bare loop over a loop that only reads, encodes
      // and publishes (encodeLoop), on the same blocks in the same round.
      const ceilingR: Array<number> = [];
      const scratch = await startTestNats();
      try {
        for (let round = 1; round <= APART_ROUNDS; round++) {
          const apart = await stagesApart(node, service, ROUND_BLOCKS);
          const floor = await bareLoop(node.url, apart.from - 1000, apart.from, apart.last);
          const encoded = await encodeLoop(scratch, node.url, apart.from - 1000, apart.from, apart.last);
          ingestR.push(floor.cpuMsPerBlock / apart.ingest);
          apiR.push(floor.cpuMsPerBlock / apart.api);
          ceilingR.push(floor.cpuMsPerBlock / encoded.cpuMsPerBlock);
          lines.push(
            `round ${round}, each stage on its own over ${ROUND_BLOCKS} blocks: ingest ${apart.ingest.toFixed(2)} ms, api ${apart.api.toFixed(2)} ms a block; the bare loop ${floor.cpuMsPerBlock.toFixed(2)} ms; read, encode and publish alone ${encoded.cpuMsPerBlock.toFixed(2)} ms: R_ingest ingest ${ingestR.at(-1)!.toFixed(2)} (at most ${ceilingR.at(-1)!.toFixed(2)} for this message format), api ${apiR.at(-1)!.toFixed(2)}`,
            `  beside the API stage, share of a core: ${apart.besideApi}${apart.quiet ? "" : "; the API process was not quiet at both ends within a minute: its figure carries other blocks' compaction"}`,
            `  by thread, ms a block (\`node\`: every other thread, V8's collector and compiler, libuv's pool and, in the API process, LevelDB's compaction, whose thread is the busiest of them in every run checked): ${apart.threads}`,
          );
        }
      } finally {
        await scratch.stop();
      }
      const slower = ingestR.map((r, i) => Math.min(r, apiR[i]!));
      lines.push(
        `R_ingest on one core each, median (min..max) of ${APART_ROUNDS} rounds: ingest ${spread(ingestR)}, api ${spread(apiR)}; the pipeline ${spread(slower)}  target >= 0.8 ` +
          `(every process together: ingest ${(bare.cpuMsPerBlock / perBlock.ingest!).toFixed(2)}, api ${(bare.cpuMsPerBlock / perBlock.api!).toFixed(2)})`,
      );
      lines.push(
        `the bare loop over a loop that only reads, encodes (as bytes, blockBytes.ts) and publishes each block, median of ${APART_ROUNDS} rounds: ${spread(ceilingR)}: the most R_ingest's ingest stage can reach while it publishes this message format`,
      );
      const released = FIREHOSE_BLOCKS + APART_ROUNDS * ROUND_BLOCKS;
      // Base-sized blocks: a day of them at Base's rate.
      lines.push(indexGrowthLine(BASE, released, (await service.indexBytes()) - indexBefore));
    },
    // The firehose's bare loop reads all its blocks again; a round's floors read its own and the
    // 1,000 before them.
    Math.max(FIREHOSE_BLOCKS, ROUND_BLOCKS + 1000),
    indexWallets,
  );

/**
 * Chain-scale load (docs/benchmarks.md "Chain-scale load"): block message sizes of the mainnet and
 * Base profiles and what a day of each costs the stream; the Base profile kept up with for
 * BENCH_CHAIN_SCALE_SECONDS; and a firehose of Base-sized blocks against a bare loop on the same node.
 */
export const chainScaleBench = async () => {
  const lines: Array<string> = [];
  lines.push(...blockMessageLines([MAINNET, BASE]));
  if (KEEP_UP_SECONDS > 0) await keepUp(lines);
  if (MAINNET_GROWTH_BLOCKS > 0) await mainnetGrowth(lines);
  for (const indexWallets of INDEX_WALLETS) await firehose(lines, indexWallets);
  return { name: "chain-scale", lines };
};
