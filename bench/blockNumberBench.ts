import { createPublicClient, http, type PublicClient } from "viem";
import { blockAtOrBefore } from "../test/support/blockAtOrBefore.js";
import { startTestDevnet } from "../test/support/devnetFixture.js";
import { startTestNats } from "../test/support/natsServer.js";
import { benchKey, rewriteChainsFile, startServiceProcess } from "./lib/benchEnv.js";
import { firstAndComplete } from "./lib/firstAnswers.js";
import { load } from "./lib/load.js";
import { startRpcCounter } from "./lib/rpcCounter.js";
import { sequential } from "./lib/sequential.js";
import { spread } from "./lib/stats.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const REPETITIONS = Number(process.env.BENCH_REPETITIONS ?? 3);
const DAY = 24 * 3600;

/**
 * `block_number` reads against the same reads at the head, in one run, as ratios (past / head) of
 * p50 latency at 1 client: balances of the whale, the single-token route and positions of the
 * wallet holding every type, on chain 1, at a block of the seeded history a day before its head,
 * on a service without the read cache (every request reads the chain) and on one with it (repeats
 * of one block are kept, a past block's by its hash) with the block within the chain's finality
 * depth (its header asked for on every request) and on one where it is final (its header kept);
 * cached balances at 32 connections (req/s, head / past); and the node calls each request makes,
 * counted on an uncached service behind a counting proxy. Head and past requests alternate within each repetition, so load on the
 * machine weighs on both alike.
 */
export const blockNumberBench = async () => {
  const devnet = await startTestDevnet();
  const chain = devnet.manifest.chains.find((c) => c.chain_id === 1)!;
  const counter = await startRpcCounter(chain.rpc_url);
  const counting = await rewriteChainsFile(devnet.devnet.chainsConfigPath, new Map([[1, counter.url]]));
  const natsA = await startTestNats();
  const natsB = await startTestNats();
  const natsC = await startTestNats();
  const natsD = await startTestNats();
  const uncached = { BALANCES_CACHE_ENTRIES: "0" };
  // The devnet keeps state for its last 52 blocks, all within its finality depth of 64: with a depth
  // of 4 the same block is final, as most blocks asked for on a real chain are, and its header is kept.
  const shallow = await rewriteChainsFile(
    devnet.devnet.chainsConfigPath,
    new Map(),
    new Map([[1, { finality_depth: 4 }]]),
  );
  const cold = await startServiceProcess(natsA, devnet.devnet.chainsConfigPath, { env: uncached });
  const cached = await startServiceProcess(natsB, devnet.devnet.chainsConfigPath);
  const counted = await startServiceProcess(natsC, counting, { env: uncached });
  const cachedFinal = await startServiceProcess(natsD, shallow);
  const services = [
    { service: cold, key: { "x-svc-api-key": await benchKey(natsA, "bench") } },
    { service: cached, key: { "x-svc-api-key": await benchKey(natsB, "bench") } },
    { service: counted, key: { "x-svc-api-key": await benchKey(natsC, "bench") } },
    { service: cachedFinal, key: { "x-svc-api-key": await benchKey(natsD, "bench") } },
  ];
  const past = Number(
    await blockAtOrBefore(
      createPublicClient({ transport: http(chain.rpc_url) }) as PublicClient,
      chain.seed_head_timestamp - DAY,
    ),
  );
  const whale = chain.wallets.whale!;
  const paths = {
    balances: `/v1/evm/balances/${whale}?chain_ids=1`,
    "single token": `/v1/evm/balances/${whale}/token/native?chain_ids=1`,
    positions: `/beta/evm/defi/positions/${chain.wallets.every_type}?chain_ids=1`,
  };
  const atPast = (path: string) => `${path}&block_number=${past}`;
  try {
    // Each wallet's discovery is done before anything is timed (the devnet's history predates the services).
    for (const { service, key } of services) {
      await firstAndComplete(service.url, key, whale, 120_000);
      await firstAndComplete(service.url, key, chain.wallets.every_type!, 120_000);
      for (const path of Object.values(paths)) {
        await sequential(`${service.url}${path}`, 0.5, key);
        await sequential(`${service.url}${atPast(path)}`, 0.5, key);
      }
    }
    const [coldRun, cachedRun, countedRun, finalRun] = services;
    const ratios = new Map<string, Array<number>>();
    const add = (name: string, value: number) => ratios.set(name, [...(ratios.get(name) ?? []), value]);
    const heads = new Map<string, Array<number>>();
    const addHead = (name: string, value: number) => heads.set(name, [...(heads.get(name) ?? []), value]);
    for (let i = 0; i < REPETITIONS; i++) {
      for (const [what, path] of Object.entries(paths)) {
        for (const [kind, run] of [
          ["uncached", coldRun!],
          ["cached, block not final", cachedRun!],
          ["cached, block final", finalRun!],
        ] as const) {
          const head = await sequential(`${run.service.url}${path}`, SECONDS, run.key);
          const then = await sequential(`${run.service.url}${atPast(path)}`, SECONDS, run.key);
          add(`${what}, ${kind}`, then.p50Ms / head.p50Ms);
          addHead(`${what}, ${kind}`, head.p50Ms);
        }
      }
      for (const [kind, run] of [
        ["block not final", cachedRun!],
        ["block final", finalRun!],
      ] as const) {
        const rate = async (path: string) =>
          (await load(`${run.service.url}${path}`, { connections: 32, seconds: SECONDS, headers: run.key }))
            .requestsPerSecond;
        const head = await rate(paths.balances);
        add(
          `balances, cached, ${kind}, 32 conns (head req/s / past req/s)`,
          head / (await rate(atPast(paths.balances))),
        );
      }
    }
    // Node calls per request: the read is the same multicall; a past block adds its header.
    const calls = async (path: string) => {
      const before = ["eth_call", "eth_getBlockByNumber"].map((m) => counter.count(m));
      const n = 20;
      for (let i = 0; i < n; i++)
        await (await fetch(`${countedRun!.service.url}${path}`, { headers: countedRun!.key })).arrayBuffer();
      const [eth, headers] = ["eth_call", "eth_getBlockByNumber"].map(
        (m, i) => (counter.count(m) - before[i]!) / n,
      );
      return `${eth!.toFixed(1)} eth_call, ${headers!.toFixed(1)} eth_getBlockByNumber`;
    };
    const callLines: Array<string> = [];
    for (const [what, path] of Object.entries(paths))
      callLines.push(
        `node calls per ${what} request: head ${await calls(path)}; past ${await calls(atPast(path))}`,
      );
    return {
      name: "block-number",
      lines: [
        `chain 1, block_number ${past} (a day before the seeded head, ${chain.seed_head_block - past} blocks back): p50 at 1 client, past / head`,
        ...[...ratios].map(([name, values]) => {
          const head = heads.get(name);
          return `${name}: ${spread(values)}${head === undefined ? "" : ` (head p50 ${spread(head)} ms)`}`;
        }),
        ...callLines,
      ],
    };
  } finally {
    await Promise.allSettled([cold.stop(), cached.stop(), counted.stop(), cachedFinal.stop()]);
    await counter.stop();
    await Promise.allSettled([natsA.stop(), natsB.stop(), natsC.stop(), natsD.stop()]);
    await devnet.stop();
  }
};
