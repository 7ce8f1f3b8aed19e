import type { DevnetManifest, ManifestChain } from "../src/devnet/DevnetManifest.js";
import { startTestDevnet } from "../test/support/devnetFixture.js";
import { startTestNats } from "../test/support/natsServer.js";
import { type ProviderProxy, startProviderProxy } from "../test/support/providerProxy.js";
import { baselineCheckout } from "./lib/baselineCheckout.js";
import { batchedScans } from "./lib/batchedScans.js";
import { benchKey, rewriteChainsFile, startServiceProcess } from "./lib/benchEnv.js";
import { processRunMs, threadsBetween } from "./lib/cpu.js";
import {
  type ChainCalls,
  type ChainReplay,
  classifyCalls,
  type FirstAnswerPhases,
  firstAnswerPhases,
  replayP50,
  replayRpcs,
  replayWithSweepBalances,
} from "./lib/discoveryCalls.js";
import { DEVNET_CHAIN_IDS, firstAndComplete, untilHealthy } from "./lib/firstAnswers.js";
import { lookupPlanning } from "./lib/lookupPlanning.js";
import { type RpcRecorder, startRpcRecorder } from "./lib/rpcRecorder.js";
import { sequential } from "./lib/sequential.js";
import { median, spread } from "./lib/stats.js";
import { sweepCost } from "./lib/sweepCost.js";
import { chainsOf, describeUniverse, universeCounts, universeReadMs } from "./lib/universeCounts.js";

const REPETITIONS = Number(process.env.BENCH_REPETITIONS ?? 3);
/** Synthetic universes swept on a bare anvil (figure 3). */
const SWEEP_SIZES = (process.env.BENCH_DISCOVERY_SWEEP_SIZES ?? "1000,10000")
  .split(",")
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0);
/** A webhook's wallets whose log scans are read one at a time and batched (figure 4): the default batch. */
const SCAN_WALLETS = Number(process.env.BENCH_DISCOVERY_SCAN_WALLETS ?? 200);
/** Universe sizes whose read from LevelDB is timed (figure 3). */
const UNIVERSE_READ_SIZES = [1_000, 50_000];
/** Never-touched addresses asked besides the seeded wallets (empty wallets are most first requests). */
const FRESH_WALLETS = Number(process.env.BENCH_DISCOVERY_FRESH_WALLETS ?? 4);
/** A wallet whose discovery is not done by then fails the run, naming it. */
const COMPLETE_LIMIT_MS = 60_000;
/** Replay rounds per wallet: at least MIN, then more within BUDGET_MS, at most MAX. */
const REPLAY = { min: 3, max: 15, budgetMs: 400 } as const;
/** Sequential `/v1/account` requests per wallet, for the gateway path. */
const GATEWAY_SECONDS = 0.2;
/** The wallets of figure 2 (besides the warm-up): every kind of holding, the 1,000-token one, empty ones. */
const UNTIL_COMPLETE_WALLETS = [
  "whale",
  "paging",
  "v3_lp",
  "liquidity",
  "lending_all",
  "every_type",
  "vault_holder",
  "pendle_holder",
  "fresh_1",
  "fresh_2",
];

const CHAIN_IDS = DEVNET_CHAIN_IDS.split(",").map(Number);
/**
 * A commit (any git revision) whose service answers each wallet's first request too, in the same
 * run as this checkout's, for figure 1's comparison: the machine's speed moves too much between
 * runs for two runs' figures to say which code is faster.
 */
const BASELINE = process.env.BENCH_DISCOVERY_BASELINE;

/** BENCH_DISCOVERY_VERBOSE=1 prints each wallet's figures to stderr as they come. */
const startedAt = performance.now();
const progress = (line: string) => {
  if (process.env.BENCH_DISCOVERY_VERBOSE === "1")
    process.stderr.write(`[discovery ${((performance.now() - startedAt) / 1000).toFixed(1)} s] ${line}\n`);
};

/** A never-touched address of the bench: no code, no balance, no transfer on any devnet chain. */
const freshAddress = (i: number) => `0x${"d15c0".padEnd(36, "0")}${i.toString(16).padStart(4, "0")}`;

/**
 * The wallets asked, each once per service: first a never-touched address that warms the service
 * (its first discovery on each chain also reads the chain's own lists, once per process), then
 * every seeded wallet of the devnet (roles share an address on every chain), then more
 * never-touched addresses.
 */
const walletsToAsk = (manifest: DevnetManifest) => {
  const seeded = new Map<string, string>();
  for (const chain of manifest.chains)
    for (const [name, address] of Object.entries(chain.wallets))
      if (![...seeded.values()].includes(address.toLowerCase())) seeded.set(name, address.toLowerCase());
  return {
    warmUp: { name: "fresh_0", address: freshAddress(0) },
    measured: [
      ...[...seeded].map(([name, address]) => ({ name, address })),
      ...Array.from({ length: FRESH_WALLETS }, (_, i) => ({
        name: `fresh_${i + 1}`,
        address: freshAddress(i + 1),
      })),
    ],
  };
};

/** One service of the bench with a NATS server and a key of its own, ready at the head of every chain. */
const startService = async (chainsConfig: string, env: NodeJS.ProcessEnv = {}, script?: string) => {
  const nats = await startTestNats();
  try {
    const service = await startServiceProcess(nats, chainsConfig, {
      env,
      ...(script === undefined ? {} : { script }),
    });
    await untilHealthy(service.url);
    const key = { "x-svc-api-key": await benchKey(nats, "bench") };
    return {
      ...service,
      chainsConfig,
      key,
      stop: async () => {
        await service.stop();
        await nats.stop();
      },
    };
  } catch (error) {
    await nats.stop();
    throw error;
  }
};
type BenchService = Awaited<ReturnType<typeof startService>>;
type Wallet = { readonly name: string; readonly address: string };

const ms = (values: ReadonlyArray<number>) => `${median(values).toFixed(1)} ms`;
const total = (calls: ReadonlyArray<ChainCalls>, of: (c: ChainCalls) => number) =>
  calls.reduce((sum, c) => sum + of(c), 0);

interface FirstAnswerRow {
  readonly name: string;
  readonly firstMs: number;
  readonly completeMs: number;
  readonly inProgress: boolean;
  /** The first answer lacked a chain (its read did not finish within the chain's budget). */
  readonly chainError: boolean;
  readonly entries: number;
  readonly gatewayMs: number;
  readonly replayMs: number;
  readonly sweepBalancesMs: number;
  readonly calls: ReadonlyArray<ChainCalls>;
  /** Where the recorded service's first answer spent its time. */
  readonly phases: FirstAnswerPhases | undefined;
  /** The same wallet's first answer from the baseline commit's service (BENCH_DISCOVERY_BASELINE). */
  readonly baseline?: { readonly firstMs: number; readonly cpu: number; readonly main: number };
  /** The direct service's time on a CPU while its first answer ran, ms: every thread, and its main thread. */
  readonly serviceCpu: {
    readonly all: number;
    readonly main: number;
    readonly byThread: Readonly<Record<string, number>>;
  };
}

/** A wallet's first answer from `service`, timed, with the service's CPU while it ran. */
const timedFirstAnswer = async (service: BenchService, wallet: Wallet) => {
  const cpuBefore = processRunMs(service.pid);
  let cpuAfter = cpuBefore;
  const timed = await firstAndComplete(service.url, service.key, wallet.address, COMPLETE_LIMIT_MS, () => {
    cpuAfter = processRunMs(service.pid);
  });
  return {
    timed,
    cpu: {
      all: cpuAfter.all - cpuBefore.all,
      main: cpuAfter.main - cpuBefore.main,
      byThread: threadsBetween(cpuBefore.byName, cpuAfter.byName),
    },
  };
};

const ratioOf = (r: FirstAnswerRow) => r.firstMs / (r.gatewayMs + 2 * r.replayMs);
const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const describeRow = (r: FirstAnswerRow) =>
  `${r.name}: first ${r.firstMs.toFixed(0)} ms${r.inProgress ? " (in progress)" : ""}${r.chainError ? " (a chain missing: over its budget)" : ""}, ${r.entries} entries once complete; replay ${r.replayMs.toFixed(1)} ms (x${ratioOf(r).toFixed(2)}); eth_calls: sweep ${total(r.calls, (c) => c.sweep.length)} (${total(r.calls, (c) => c.swept)} tokens), factory lookups ${total(r.calls, (c) => c.lookups.length)} (${megabytes(total(r.calls, (c) => c.bytes.lookups))}), balances-and-prices ${total(r.calls, (c) => c.holdings.length)}, other ${total(r.calls, (c) => c.otherCalls)} (${megabytes(total(r.calls, (c) => c.bytes.other))}); eth_getLogs ${total(r.calls, (c) => c.getLogs)}`;

/**
 * Figure 1: each wallet's first answer, first from the recorded service (whose nodes are behind
 * recorders: what it sends for the answer is kept), then from the direct service, timed, then the
 * gateway path on that service and the replays of what the recorded one sent. Both services see
 * the wallets in the same order, so their caches (chain lists, pool lookups, the universe) are
 * alike at each wallet.
 */
const firstAnswers = async (
  chains: ReadonlyArray<ManifestChain>,
  recorders: ReadonlyMap<number, RpcRecorder>,
  recorded: BenchService,
  direct: BenchService,
  wallets: ReadonlyArray<Wallet>,
  baseline?: BenchService,
): Promise<ReadonlyArray<FirstAnswerRow>> => {
  const rows: Array<FirstAnswerRow> = [];
  const { rpcs, close } = replayRpcs(chains.map((chain) => chain.rpc_url));
  try {
    for (const wallet of wallets) {
      for (const r of recorders.values()) r.take();
      const seen = await firstAndComplete(recorded.url, recorded.key, wallet.address, COMPLETE_LIMIT_MS);
      // What it sent before its first answer was back (later calls are the background's or polls');
      // by now (its answer complete) even a read the answer gave up on has been answered and kept.
      const sent = new Map(
        chains.map((chain) => [
          chain.chain_id,
          recorders
            .get(chain.chain_id)!
            .take()
            .filter((c) => c.at <= seen.first.at),
        ]),
      );
      const replays: Array<ChainReplay & { wallet: string }> = chains.map((chain) => ({
        url: chain.rpc_url,
        wallet: wallet.address,
        calls: classifyCalls(sent.get(chain.chain_id)!, wallet.address),
      }));
      const phases = firstAnswerPhases(
        chains.map((chain) => sent.get(chain.chain_id)!),
        replays.map((r) => r.calls),
        seen.first.at - seen.first.ms,
        seen.first.at,
      );
      // With a baseline, each wallet is asked of both services, one after the other, which goes
      // first alternating from wallet to wallet.
      const baselineFirst = baseline !== undefined && rows.length % 2 === 1;
      const before = baselineFirst ? await timedFirstAnswer(baseline, wallet) : undefined;
      const { timed, cpu } = await timedFirstAnswer(direct, wallet);
      const against =
        baseline === undefined ? undefined : (before ?? (await timedFirstAnswer(baseline, wallet)));
      const gatewayMs = (await sequential(`${direct.url}/v1/account`, GATEWAY_SECONDS, direct.key)).p50Ms;
      const replayMs = await replayP50(replays, REPLAY);
      // Once for a wallet whose replay takes long (the 1,000-token one): the run stays short.
      const sweepBalancesMs = await replayWithSweepBalances(replays, rpcs, replayMs > 300 ? 1 : 3);
      const row: FirstAnswerRow = {
        name: wallet.name,
        firstMs: timed.first.ms,
        completeMs: timed.completeMs,
        inProgress: timed.first.inProgress,
        chainError: timed.first.errors !== undefined,
        entries: timed.complete.entries,
        gatewayMs,
        replayMs,
        sweepBalancesMs,
        calls: replays.map((r) => r.calls),
        phases,
        serviceCpu: cpu,
        ...(against === undefined
          ? {}
          : { baseline: { firstMs: against.timed.first.ms, cpu: against.cpu.all, main: against.cpu.main } }),
      };
      progress(
        `first answers: ${describeRow(row)}; phases ${JSON.stringify(phases, (_, v) => (typeof v === "number" ? Math.round(v) : v))}; gateway ${gatewayMs.toFixed(2)} ms, sweepBalances replay ${sweepBalancesMs.toFixed(1)} ms${timed.errors.length > 0 ? `; errors ${timed.errors[0]}` : ""}`,
      );
      rows.push(row);
    }
  } finally {
    await close();
  }
  return rows;
};

const describePhases = (rows: ReadonlyArray<FirstAnswerRow>): string => {
  const phased = rows.flatMap((r) => (r.phases === undefined ? [] : [r.phases]));
  const part = (name: string, of: (p: FirstAnswerPhases) => number) => `${name} ${ms(phased.map(of))}`;
  return `where the recorded service's first answer went on the chain it waited for last, p50 over ${phased.length} wallets (its nodes one recorder hop away): ${[
    part("before any call", (p) => p.beforeCalls),
    part("the sweep", (p) => p.sweep),
    part(
      "from the sweep's answer to pricing (found tokens' metadata and vault probes, writes)",
      (p) => p.afterSweep,
    ),
    part("pricing (lookups, balances-and-prices)", (p) => p.pricing),
    part("after the last call", (p) => p.afterCalls),
  ].join("; ")}`;
};

/**
 * How much of the first answers' time the service spent on a CPU: where that is most of it, the
 * answer waits on the service's own work (its event loop), not on the nodes, and only less CPU per
 * answer brings it down. Readings are the process's schedstat, exact to the nanosecond.
 */
const describeServiceCpu = (rows: ReadonlyArray<FirstAnswerRow>): string => {
  const share = (part: number, whole: number) => `${((100 * part) / whole).toFixed(0)} %`;
  const first = median(rows.map((r) => r.firstMs));
  const all = median(rows.map((r) => r.serviceCpu.all));
  const main = median(rows.map((r) => r.serviceCpu.main));
  const names = [...new Set(rows.flatMap((r) => Object.keys(r.serviceCpu.byThread)))];
  const byThread = names
    .map((name) => ({ name, ms: median(rows.map((r) => r.serviceCpu.byThread[name] ?? 0)) }))
    .filter((t) => t.ms >= 0.05)
    .sort((a, b) => b.ms - a.ms)
    .map((t) => `${t.name} ${t.ms.toFixed(1)}`)
    .join(", ");
  return `the service's time on a CPU while each first answer ran (one process: gateway, API, ingest), p50 over ${rows.length} wallets: every thread ${all.toFixed(1)} ms, its main thread ${main.toFixed(1)} ms, against a first answer's p50 of ${first.toFixed(1)} ms (${share(all, first)} and ${share(main, first)}); per wallet, main thread over first answer ${spread(rows.map((r) => r.serviceCpu.main / r.firstMs))}; by thread name, ms (p50 of each): ${byThread}`;
};

/** This checkout's first answers against the baseline commit's, wallet by wallet in the same run. */
const describeBaseline = (rows: ReadonlyArray<FirstAnswerRow>, commit: string): string => {
  const compared = rows.flatMap((r) => (r.baseline === undefined ? [] : [{ row: r, baseline: r.baseline }]));
  const versus = (label: string, head: ReadonlyArray<number>, base: ReadonlyArray<number>) =>
    `${label} p50 ${ms(head)} against ${ms(base)} (x${(median(head) / median(base)).toFixed(2)})`;
  const faster = compared.filter(({ row, baseline }) => row.firstMs < baseline.firstMs).length;
  return `against ${commit} (BENCH_DISCOVERY_BASELINE), each wallet asked of both services one after the other, which first alternating: ${versus(
    "first answer",
    compared.map(({ row }) => row.firstMs),
    compared.map(({ baseline }) => baseline.firstMs),
  )}, faster in ${faster} of ${compared.length}; the service's CPU per first answer, ${versus(
    "every thread",
    compared.map(({ row }) => row.serviceCpu.all),
    compared.map(({ baseline }) => baseline.cpu),
  )}, ${versus(
    "main thread",
    compared.map(({ row }) => row.serviceCpu.main),
    compared.map(({ baseline }) => baseline.main),
  )}`;
};

const describeFirstAnswers = (
  rows: ReadonlyArray<FirstAnswerRow>,
  baselineCommit?: string,
): ReadonlyArray<string> => {
  const [warmUp, ...measured] = rows;
  const first = measured.map((r) => r.firstMs);
  const gateway = measured.map((r) => r.gatewayMs);
  const replay = measured.map((r) => r.replayMs);
  const callsOf = (of: (c: ChainCalls) => number) =>
    spread(
      measured.map((r) => total(r.calls, of)),
      0,
    );
  const p50Ratio = median(first) / (median(gateway) + 2 * median(replay));
  return [
    `first answer of balances on chains ${DEVNET_CHAIN_IDS}, ${measured.length} never-seen wallets (${measured.length - FRESH_WALLETS} seeded, ${FRESH_WALLETS} never touched), 1 client, DISCOVERY_WAIT_MS 5000: p50 ${ms(first)}, min ${Math.min(...first).toFixed(1)}, max ${Math.max(...first).toFixed(1)}; ${measured.filter((r) => r.inProgress).length} answered in progress, ${measured.filter((r) => r.chainError).length} without a chain (its read over the chain's budget)`,
    `  the first wallet of a fresh service (never touched; it also reads each chain's own lists): ${warmUp!.firstMs.toFixed(1)} ms`,
    `gateway path (/v1/account) p50 ${ms(gateway)}; the same sweep and pricing eth_calls replayed straight to anvil (sweep, then factory lookups, then the balances-and-prices multicall; the 4 chains at once): p50 ${ms(replay)}; with the sweep made by sweepBalances over a ChainRpc: p50 ${ms(measured.map((r) => r.sweepBalancesMs))}`,
    `first p50 / (gateway p50 + 2 x replay p50): ${p50Ratio.toFixed(2)}; per wallet ${spread(measured.map(ratioOf))}  target <= 1`,
    `per wallet, 4 chains, median (min..max): eth_calls of the sweep ${callsOf((c) => c.sweep.length)}, factory lookups ${callsOf((c) => c.lookups.length)}, balances-and-prices ${callsOf((c) => c.holdings.length)}, other (position finders, metadata and vault probes of found tokens) ${callsOf((c) => c.otherCalls)}; eth_getLogs ${callsOf((c) => c.getLogs)}`,
    describePhases(measured),
    describeServiceCpu(measured),
    ...(baselineCommit === undefined ? [] : [describeBaseline(measured, baselineCommit)]),
    "slowest first answers:",
    ...[...measured]
      .sort((a, b) => b.firstMs - a.firstMs)
      .slice(0, 3)
      .map((r) => `  ${describeRow(r)}`),
  ];
};

/**
 * Figure 2: each wallet's first answer and first complete one on two services with
 * DISCOVERY_WAIT_MS 0 (a first answer does not wait for the sweep), whose nodes are reth-style
 * proxies: one keeps every log, the other none older than the head, so there is nothing to scan.
 */
const untilComplete = async (
  sides: Record<
    "scan" | "none",
    { readonly service: BenchService; readonly proxies: ReadonlyArray<ProviderProxy> }
  >,
  wallets: ReadonlyArray<Wallet>,
): Promise<ReadonlyArray<string>> => {
  type Run = { firstMs: number; completeMs: number; entries: number; getLogs: number; errors: number };
  const runs: Record<"scan" | "none", Array<Run>> = { scan: [], none: [] };
  for (const [i, wallet] of wallets.entries())
    for (const side of ["scan", "none"] as const) {
      const { service, proxies } = sides[side];
      for (const p of proxies) p.resetStats();
      const run = await firstAndComplete(service.url, service.key, wallet.address, COMPLETE_LIMIT_MS);
      const getLogs = proxies.reduce((sum, p) => sum + (p.stats().methods.eth_getLogs ?? 0), 0);
      progress(
        `${side === "scan" ? "with" : "without"} the scan: ${wallet.name} first ${run.first.ms.toFixed(0)} ms, complete ${run.completeMs.toFixed(0)} ms after ${run.polls} polls, ${run.complete.entries} entries, ${getLogs} eth_getLogs${run.errors.length > 0 ? `; ${run.errors.length} answers with errors: ${run.errors[0]}` : ""}`,
      );
      // The first wallet warms the service (chain lists): left out, as in figure 1.
      if (i > 0)
        runs[side].push({
          firstMs: run.first.ms,
          completeMs: run.completeMs,
          entries: run.complete.entries,
          getLogs,
          errors: run.errors.length,
        });
    }
  const describe = (side: "scan" | "none") => {
    const r = runs[side];
    return `first answer p50 ${ms(r.map((x) => x.firstMs))}; complete p50 ${ms(r.map((x) => x.completeMs))}, max ${Math.max(...r.map((x) => x.completeMs)).toFixed(0)} ms; eth_getLogs per wallet ${spread(
      r.map((x) => x.getLogs),
      0,
    )}; ${r.reduce((sum, x) => sum + x.entries, 0)} entries in all; ${r.reduce((sum, x) => sum + x.errors, 0)} answers with a chain missing`;
  };
  const ratio = median(runs.scan.map((x) => x.completeMs)) / median(runs.none.map((x) => x.completeMs));
  return [
    `DISCOVERY_WAIT_MS 0, ${runs.scan.length} wallets (${wallets
      .slice(1)
      .map((w) => w.name)
      .join(", ")}), asked again every 25 ms until complete; each chain behind a reth-style proxy:`,
    `  keeping every log (the log scan runs): ${describe("scan")}`,
    `  keeping no log older than the head (nothing to scan): ${describe("none")}`,
    `complete p50 with / without the scan: ${ratio.toFixed(2)}`,
  ];
};

/**
 * `npm run bench -- discovery`: a wallet's first request on chains whose history the service
 * never ingested (the devnet's chains file without `start_block`: the service starts at the head
 * and discovers, src/discovery/):
 * 1. the first answer of balances on the 4 devnet chains for never-seen wallets, p50, against the
 *    gateway path plus 2x a direct replay of the same sweep and pricing eth_calls; with
 *    BENCH_DISCOVERY_BASELINE, against another commit's service in the same run;
 * 2. the time until a wallet's answer is complete, with and without the wallet's log scan;
 * 3. the sweep's cost per 1,000 tokens of universe on a bare anvil, and each chain's universe; what
 *    planning a factory lookup costs this process's thread;
 * 4. a webhook's wallets' log scans, one wallet at a time against one batch (calls and time).
 */
export const discoveryBench = async () => {
  const lines: Array<string> = [];
  const section = (title: string, body: ReadonlyArray<string>) => lines.push(`-- ${title}`, ...body);
  const devnet = await startTestDevnet();
  const recorders = new Map<number, RpcRecorder>();
  const proxies: Record<"scan" | "none", Array<ProviderProxy>> = { scan: [], none: [] };
  const services: Array<BenchService> = [];
  const checkout = BASELINE === undefined ? undefined : baselineCheckout(BASELINE);
  try {
    const chains = CHAIN_IDS.map((id) => devnet.manifest.chains.find((c) => c.chain_id === id)!);
    // As a real chain is configured: no start_block, so each service starts at the head.
    const fromHead = new Map(chains.map((c) => [c.chain_id, { start_block: undefined }] as const));
    const chainsFile = (urls: ReadonlyMap<number, string>) =>
      rewriteChainsFile(devnet.devnet.chainsConfigPath, urls, fromHead);
    for (const chain of chains) {
      recorders.set(chain.chain_id, await startRpcRecorder(chain.rpc_url));
      proxies.scan.push(
        await startProviderProxy({ target: chain.rpc_url, style: "reth", prunedWindow: 1_000_000_000 }),
      );
      proxies.none.push(await startProviderProxy({ target: chain.rpc_url, style: "reth", prunedWindow: 0 }));
    }
    const proxied = (side: "scan" | "none") =>
      new Map(chains.map((chain, i) => [chain.chain_id, proxies[side][i]!.url]));
    // Started together (each start is mostly waiting), then left idle until their turn.
    const [recorded, direct, scan, none] = await Promise.all([
      chainsFile(new Map([...recorders].map(([id, r]) => [id, r.url]))).then((c) => startService(c)),
      chainsFile(new Map()).then((c) => startService(c)),
      chainsFile(proxied("scan")).then((c) => startService(c, { DISCOVERY_WAIT_MS: "0" })),
      chainsFile(proxied("none")).then((c) => startService(c, { DISCOVERY_WAIT_MS: "0" })),
    ]);
    services.push(recorded, direct, scan, none);
    const { warmUp, measured } = walletsToAsk(devnet.manifest);
    const baseline =
      checkout === undefined
        ? undefined
        : await chainsFile(new Map()).then((c) => startService(c, {}, checkout.serviceScript));
    if (baseline !== undefined) services.push(baseline);

    const rows = await firstAnswers(chains, recorders, recorded, direct, [warmUp, ...measured], baseline);
    await Promise.all([recorded.stop(), direct.stop(), baseline?.stop()]);
    const universe = await universeCounts(direct.chainsConfig, direct.dataDir);
    section(
      "1. first answer of a never-seen wallet, against a direct replay of its sweep and pricing",
      describeFirstAnswers(rows, checkout === undefined ? undefined : `${BASELINE} (${checkout.commit})`),
    );

    const complete = await untilComplete(
      { scan: { service: scan, proxies: proxies.scan }, none: { service: none, proxies: proxies.none } },
      [warmUp, ...measured.filter((w) => UNTIL_COMPLETE_WALLETS.includes(w.name))],
    );
    await Promise.all([scan.stop(), none.stop()]);
    const measuredRows = rows.slice(1);
    section("2. time until the answer is complete (no DISCOVERY_IN_PROGRESS)", [
      `at the default DISCOVERY_WAIT_MS (5000, figure 1), ${measuredRows.filter((r) => !r.inProgress).length} of ${measuredRows.length} first answers were complete already; complete after p50 ${ms(measuredRows.map((r) => r.completeMs))}, max ${Math.max(...measuredRows.map((r) => r.completeMs)).toFixed(0)} ms`,
      ...complete,
    ]);

    const mainnet = (await chainsOf(direct.chainsConfig)).find((c) => c.chain_id === 1)!;
    const universeReads: Array<string> = [];
    for (const size of UNIVERSE_READ_SIZES)
      universeReads.push(
        `${size.toLocaleString("en-US")} tokens ${(await universeReadMs(mainnet, size, 5)).toFixed(1)} ms`,
      );
    section("3. the sweep per 1,000 tokens of universe (bare anvil), and each devnet chain's universe", [
      ...(await sweepCost(SWEEP_SIZES, Math.max(REPETITIONS, 5))),
      `reading the universe (tokenUniverse over a LevelDB of that many seen tokens; done for every wallet's sweep on every chain), p50 of 5: ${universeReads.join(", ")}`,
      ...lookupPlanning(mainnet, 9),
      ...chains.map((chain, c) => {
        const swept = measuredRows.map((r) => r.calls[c]!.swept);
        return `chain ${chain.chain_id} (${chain.name}) after figure 1: ${describeUniverse(universe.get(chain.chain_id)!)}; swept per wallet ${Math.min(...swept).toLocaleString("en-US")}..${Math.max(...swept).toLocaleString("en-US")} tokens`;
      }),
    ]);
    section(
      "4. a webhook's wallets' log scans: one wallet at a time, or one batch (bare anvil)",
      await batchedScans(SCAN_WALLETS, 2_000, Math.max(REPETITIONS, 3)),
    );
    return { name: "discovery", lines };
  } finally {
    await Promise.allSettled(services.map((s) => s.stop()));
    for (const r of recorders.values()) await r.stop();
    for (const p of [...proxies.scan, ...proxies.none]) await p.stop();
    await devnet.stop();
    checkout?.remove();
  }
};
