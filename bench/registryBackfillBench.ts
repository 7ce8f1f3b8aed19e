import { ProtocolConfig } from "../src/chains/ChainsConfig.js";
import { type BackfillProgress, makeRegistryBackfill } from "../src/discovery/registryBackfill.js";
import type { Db } from "../src/storage/Level.js";
import { startAnvil } from "../test/support/anvil.js";
import { testChainConfig } from "../test/support/chainConfigFixture.js";
import { memoryDb } from "../test/support/indexerBlocks.js";
import { type ProviderProxyOptions, startProviderProxy } from "../test/support/providerProxy.js";
import { benchChainRpc } from "./lib/benchChainRpc.js";
import { describeTally, type ProxyTally, tallyOf } from "./lib/proxyTally.js";
import { mineRegistryHistory, REGISTRY_FACTORY } from "./lib/registryChain.js";
import { median, spread } from "./lib/stats.js";

const REPETITIONS = Number(process.env.BENCH_REPETITIONS ?? 3);
/** Blocks of the factory's history. */
const BLOCKS = Number(process.env.BENCH_REGISTRY_BLOCKS ?? 10_000);
/** A PairCreated every this many blocks, and as many noise logs in the block after it. */
const EVERY = 20;
const NOISE = 20;
/** A run not done by then is stopped and reported so. */
const LIMIT_MS = Number(process.env.BENCH_FLOW_LIMIT_SECONDS ?? 20) * 3 * 1000;

/** The 50-block range cap of a QuickNode plan, and a rate limit with a burst (as the real-nodes backfill). */
const RANGE_CAP = 50;
const RATE = { rps: 200, burst: 100 };
const CAPPED: Omit<ProviderProxyOptions, "target"> = {
  style: "quicknode",
  maxLogsRange: RANGE_CAP,
  rateLimit: RATE,
};

const CHAIN_ID = 31337;
const chain = testChainConfig({
  chain_id: CHAIN_ID,
  name: "bench",
  protocols: [
    ProtocolConfig.make({ protocol: "BenchV2", kind: "v2", address: REGISTRY_FACTORY, start_block: 0 }),
  ],
});

interface Run {
  readonly ms: number;
  readonly progress: BackfillProgress;
  readonly finished: boolean;
  /** The pool records written, for comparing runs. */
  readonly pools: string;
  readonly tally?: ProxyTally;
}

const poolsOf = async (db: Db): Promise<string> => {
  const out: Array<unknown> = [];
  for await (const entry of db.iterator({ gte: "idx!pool!", lt: "idx!pool!~" })) out.push(entry);
  return JSON.stringify(out);
};

/**
 * One backfill of blocks 0..head on an empty index through a fresh ChainRpc (the service's settings,
 * no monitor: the proxy counts only the backfill's calls), as a first start would run it.
 */
const backfillThrough = async (url: string, head: number, count?: () => ProxyTally): Promise<Run> => {
  const { rpc, close } = await benchChainRpc(url, { chainId: CHAIN_ID });
  // What the monitor's probe finds on anvil (every log kept), set rather than probed: the probe is
  // the monitor's work, measured with the node's, not the backfill's.
  const health = rpc.endpoints[0]!.health;
  health.capabilities = { logsFrom: 0, probedAt: Date.now() };
  health.observeHead(head, Date.now());
  const db = memoryDb();
  const backfill = makeRegistryBackfill({
    db,
    cache: undefined,
    rpc: () => rpc,
    indexedFrom: () => head + 1,
    now: () => Date.now(),
  });
  try {
    const started = performance.now();
    backfill.start(chain);
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      backfill.done(CHAIN_ID).then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), LIMIT_MS);
      }),
    ]);
    clearTimeout(timer);
    const ms = performance.now() - started;
    await backfill.stop();
    const progress = backfill.progress(CHAIN_ID)!;
    return {
      ms,
      progress,
      finished: finished && progress.done,
      pools: await poolsOf(db),
      ...(count === undefined ? {} : { tally: count() }),
    };
  } finally {
    await close();
    await db.close();
  }
};

const logsPerSecond = (run: Run) => run.progress.logs / (run.ms / 1000);

/**
 * `npm run bench -- registry-backfill`: the registry backfill (src/discovery/registryBackfill.ts)
 * of a V2 factory's history, `BENCH_REGISTRY_BLOCKS` (10,000) blocks on a bare anvil with a
 * `PairCreated` every 20 blocks and 20 logs of another contract after each, read on an empty index
 * straight from anvil and through a QuickNode-style proxy capped at 50-block eth_getLogs ranges and
 * 200 elements/s (burst 100), alternately `BENCH_REPETITIONS` times, each with a fresh ChainRpc
 * (and proxy): registry logs per second, the backfill's JSON-RPC calls, what the proxy saw, and the
 * capped run over the direct one.
 */
export const registryBackfillBench = async () => {
  const lines: Array<string> = [];
  // Only logs and the head's state are read: anvil keeping no older states mines the history faster.
  const anvil = await startAnvil({ chainId: CHAIN_ID, args: ["--prune-history"] });
  try {
    const setUp = performance.now();
    const history = await mineRegistryHistory(anvil.rpcUrl, { blocks: BLOCKS, every: EVERY, noise: NOISE });
    const minedMs = performance.now() - setUp;
    const direct: Array<Run> = [];
    const capped: Array<Run> = [];
    for (let rep = 0; rep < REPETITIONS; rep++) {
      direct.push(await backfillThrough(anvil.rpcUrl, history.head));
      const proxy = await startProviderProxy({ target: anvil.rpcUrl, ...CAPPED });
      try {
        capped.push(await backfillThrough(proxy.url, history.head, () => tallyOf(proxy.stats())));
      } finally {
        await proxy.stop();
      }
      if (!capped.at(-1)!.finished) break;
    }
    const last = capped.at(-1)!;
    const tally = last.tally!;
    const cappedCalls = median(capped.map((r) => r.progress.calls));
    const directCalls = median(direct.map((r) => r.progress.calls));
    const ranges = Math.ceil((history.head + 1) / RANGE_CAP);
    const floorMs = (Math.max(0, tally.elements - RATE.burst) / RATE.rps) * 1000;
    const same =
      capped.every((r) => r.pools === direct[0]!.pools) && direct.every((r) => r.pools === direct[0]!.pools);
    lines.push(
      `chain: ${history.head} blocks on a bare anvil, ${history.pairs} PairCreated of one V2 factory (one every ${EVERY} blocks) and ${history.noiseLogs} logs of another contract; mined in ${(minedMs / 1000).toFixed(1)} s`,
      `direct (anvil): ${median(direct.map((r) => r.ms)).toFixed(0)} ms, ${median(direct.map(logsPerSecond)).toFixed(0)} registry logs/s, ${directCalls} calls (${direct[0]!.progress.logs} logs)`,
      `capped (QuickNode style, ${RANGE_CAP}-block ranges, ${RATE.rps} elements/s, burst ${RATE.burst}): ${last.finished ? "" : ">= "}${spread(capped.map((r, i) => r.ms / direct[i]!.ms))}x the direct time, ${median(capped.map(logsPerSecond)).toFixed(0)} registry logs/s (${spread(
        capped.map((r, i) => logsPerSecond(r) / logsPerSecond(direct[i]!)),
        3,
      )}x direct); ${cappedCalls} calls (${(cappedCalls / directCalls).toFixed(1)}x direct)`,
      `capped: ${tally.getLogs} eth_getLogs against N/${RANGE_CAP} = ${ranges} (${(tally.getLogs / ranges).toFixed(2)}x), ${tally.ethCalls} eth_call; ${describeTally(tally)}; ${
        floorMs === 0
          ? `${tally.elements} elements, within the burst`
          : `${(last.ms / floorMs).toFixed(2)}x its rate floor (${(floorMs / 1000).toFixed(1)} s for ${tally.elements} elements)`
      }; ${
        last.finished
          ? same
            ? `the same ${history.pairs} pool records as direct`
            : "NOT the direct run's pool records"
          : `stopped after ${LIMIT_MS / 1000} s at block ${last.progress.next}${last.progress.error === undefined ? "" : `, last error: ${last.progress.error}`}`
      }`,
    );
    return { name: "registry-backfill", lines };
  } finally {
    await anvil.stop();
  }
};
