import type { ManifestChain } from "../../src/devnet/DevnetManifest.js";
import { startTestDevnet } from "../../test/support/devnetFixture.js";
import { startTestNats } from "../../test/support/natsServer.js";
import { benchKey, rewriteChainsFile, startServiceProcess } from "./benchEnv.js";
import { load } from "./load.js";
import { replayTogether } from "./replay.js";
import { startRpcCounter } from "./rpcCounter.js";
import { sequential } from "./sequential.js";
import { median, spread } from "./stats.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const REPETITIONS = Number(process.env.BENCH_REPETITIONS ?? 3);

/**
 * A positions request for one devnet wallet on several chains, in one run: cold (a service without the
 * read cache) with its `eth_call`s per chain, against the gateway path plus the chains' multicalls
 * replayed directly and at once, as the service sends them (target: cold p50 <= gateway p50 + 2 x
 * direct p50), and cached p50/p99 at 1 and 32 connections. Cold latency is measured on a service
 * that reaches the nodes directly; a second cold service, behind the counting proxies, counts the
 * eth_calls and yields the multicalls to replay (the proxies' hop is neither side's cost).
 */
export const coldPositionsBench = async (options: {
  readonly name: string;
  readonly chains: ReadonlyArray<number>;
  /** The wallet, from the first chain's manifest entry. */
  readonly wallet: (chain: ManifestChain) => string;
  /** What the wallet holds, for the report. */
  readonly holds: string;
}) => {
  const { chains: ids } = options;
  const devnet = await startTestDevnet();
  const counters = new Map(
    await Promise.all(
      ids.map(async (id) => {
        const chain = devnet.manifest.chains.find((c) => c.chain_id === id)!;
        return [id, { chain, counter: await startRpcCounter(chain.rpc_url) }] as const;
      }),
    ),
  );
  const chains = await rewriteChainsFile(
    devnet.devnet.chainsConfigPath,
    new Map([...counters].map(([id, { counter }]) => [id, counter.url])),
  );
  const natsA = await startTestNats();
  const natsB = await startTestNats();
  const natsC = await startTestNats();
  const cached = await startServiceProcess(natsA, chains);
  // Counts eth_calls through the proxies; `cold` reaches the nodes directly, for latency.
  const counted = await startServiceProcess(natsB, chains, { env: { BALANCES_CACHE_ENTRIES: "0" } });
  const cold = await startServiceProcess(natsC, devnet.devnet.chainsConfigPath, {
    env: { BALANCES_CACHE_ENTRIES: "0" },
  });
  const keyA = { "x-svc-api-key": await benchKey(natsA, "bench") };
  const keyB = { "x-svc-api-key": await benchKey(natsB, "bench") };
  const keyC = { "x-svc-api-key": await benchKey(natsC, "bench") };
  const wallet = options.wallet(counters.get(ids[0]!)!.chain);
  const path = `/beta/evm/defi/positions/${wallet}?chain_ids=${ids.join(",")}`;
  const ethCalls = () => ids.map((id) => counters.get(id)!.counter.count("eth_call"));
  try {
    await load(`${cached.url}${path}`, { connections: 32, seconds: 2, headers: keyA });
    await sequential(`${counted.url}${path}`, 1, keyB);
    await sequential(`${cold.url}${path}`, 1, keyC);

    const gateway: Array<number> = [];
    const coldP50: Array<number> = [];
    const direct: Array<number> = [];
    const callsPerChain: Array<number> = [];
    const hot1: Array<{ p50Ms: number; p99Ms: number }> = [];
    const hot32: Array<{ requestsPerSecond: number; p50Ms: number; p99Ms: number }> = [];
    for (let i = 0; i < REPETITIONS; i++) {
      const before = ethCalls();
      const countedRun = await sequential(`${counted.url}${path}`, 1, keyB);
      const after = ethCalls();
      callsPerChain.push(Math.max(...after.map((n, c) => (n - before[c]!) / countedRun.count)));
      gateway.push((await sequential(`${cold.url}/v1/account`, SECONDS, keyC)).p50Ms);
      coldP50.push((await sequential(`${cold.url}${path}`, SECONDS, keyC)).p50Ms);
      const calls = [...counters.values()].map(({ chain, counter }) => ({
        url: chain.rpc_url,
        body: counter.lastCall()!,
      }));
      direct.push((await replayTogether(calls, 200)).p50Ms);
      hot1.push(await sequential(`${cached.url}${path}`, SECONDS, keyA));
      hot32.push(await load(`${cached.url}${path}`, { connections: 32, seconds: SECONDS, headers: keyA }));
    }
    const ratio = coldP50.map((c, i) => c / (gateway[i]! + 2 * direct[i]!));
    const ms = (values: Array<number>) => median(values).toFixed(2);
    return {
      name: options.name,
      lines: [
        `${options.holds} on chains ${ids.join(", ")}, cold, 1 client: p50 ${ms(coldP50)} ms; eth_calls per chain per request (most of any chain) ${spread(callsPerChain)}`,
        `gateway path (/v1/account), 1 client: p50 ${ms(gateway)} ms; the ${ids.length} multicalls replayed directly, at once: p50 ${ms(direct)} ms`,
        `cold p50 / (gateway p50 + 2 x direct p50): ${spread(ratio)}  target <= 1`,
        `cached, 1 client: p50 ${ms(hot1.map((r) => r.p50Ms))} ms, p99 ${ms(hot1.map((r) => r.p99Ms))} ms`,
        `cached, 32 conns: ${spread(
          hot32.map((r) => r.requestsPerSecond),
          0,
        )} req/s, p50 ${median(hot32.map((r) => r.p50Ms))} ms, p99 ${median(hot32.map((r) => r.p99Ms))} ms`,
      ],
    };
  } finally {
    await Promise.allSettled([cached.stop(), counted.stop(), cold.stop()]);
    for (const { counter } of counters.values()) await counter.stop();
    await natsA.stop();
    await natsB.stop();
    await natsC.stop();
    await devnet.stop();
  }
};
