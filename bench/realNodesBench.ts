import { startTestDevnet } from "../test/support/devnetFixture.js";
import { startTestNats, type TestNats } from "../test/support/natsServer.js";
import { type ProviderProxy, startProviderProxy } from "../test/support/providerProxy.js";
import { benchKey, rewriteChainsFile, startServiceProcess } from "./lib/benchEnv.js";
import { cappedHistory } from "./lib/cappedHistory.js";
import { failoverIngest } from "./lib/failoverIngest.js";
import { failoverReads } from "./lib/failoverReads.js";
import { frozenChain } from "./lib/frozenChain.js";
import { serviceThroughStyles } from "./lib/serviceThroughStyles.js";
import { styleFlows } from "./lib/styleFlows.js";
import { walletBalanceCalls } from "./lib/walletBalanceReads.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const REPETITIONS = Number(process.env.BENCH_REPETITIONS ?? 3);
/** Blocks of the capped backfill (figure 2). */
const HISTORY_BLOCKS = Number(process.env.BENCH_HISTORY_BLOCKS ?? 2_000);
/** A flow not done by then is given up and reported so: a flow that never recovers ends, the run goes on. */
const FLOW_LIMIT_MS = Number(process.env.BENCH_FLOW_LIMIT_SECONDS ?? 20) * 1000;
/** Balances-style reads per flow run, and how many at once. */
const READS = 200;
const CONCURRENCY = 16;
/** Sequential whole answers per route and provider plan. */
const ANSWERS = 20;

/**
 * `npm run bench -- real-nodes`: the service's chain access against emulated nodes and providers
 * (test/support/providerProxy.ts) that refuse as reth, geth, Erigon, Infura, Alchemy and QuickNode
 * do, each figure against the same work with no caps in the same run:
 * 1. the history read and a balances-style read through each style (calls, refusals, time), and
 *    whole service answers through each;
 * 2. a backfill of `BENCH_HISTORY_BLOCKS` blocks through a 50-block-capped, rate-limited provider;
 * 3. failover from a stopped or hung primary to a fallback, under reads and during ingest;
 * 4. one chain's only node hung under mixed load on the whole service.
 */
export const realNodesBench = async () => {
  const lines: Array<string> = [];
  const section = (title: string, body: ReadonlyArray<string>) => lines.push(`-- ${title}`, ...body);
  const devnet = await startTestDevnet();
  let proxy: ProviderProxy | undefined;
  let nats: TestNats | undefined;
  let service: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
  try {
    const mainnet = devnet.manifest.chains.find((c) => c.chain_id === 1)!;
    const base = devnet.manifest.chains.find((c) => c.chain_id === 8453)!;

    section(
      "1. flows through each provider style: a ChainRpc over the proxy against the same ChainRpc direct, chain 1 of the devnet",
      await styleFlows(
        {
          rpcUrl: mainnet.rpc_url,
          chainId: 1,
          head: mainnet.seed_head_block,
          calls: walletBalanceCalls(mainnet),
          reads: READS,
          concurrency: CONCURRENCY,
          limitMs: FLOW_LIMIT_MS,
        },
        REPETITIONS,
      ),
    );
    section(
      `2. a backfill of ${HISTORY_BLOCKS} blocks, capped and rate limited, against the same read uncapped`,
      await cappedHistory(HISTORY_BLOCKS, REPETITIONS, 3 * FLOW_LIMIT_MS),
    );
    section("3. failover from a primary to a fallback endpoint", [
      ...(await failoverReads(base, SECONDS, "stopped")),
      ...(await failoverReads(base, SECONDS, "hung")),
      ...(await failoverIngest(SECONDS)),
    ]);

    // One service for the rest: chain 1's only node behind a proxy, every read cold.
    proxy = await startProviderProxy({ target: mainnet.rpc_url, style: "anvil" });
    const chains = await rewriteChainsFile(devnet.devnet.chainsConfigPath, new Map([[1, proxy.url]]));
    nats = await startTestNats();
    service = await startServiceProcess(nats, chains, { env: { BALANCES_CACHE_ENTRIES: "0" } });
    const target = { url: service.url, key: await benchKey(nats, "bench") };
    section(
      `1. whole answers through each provider style: ${ANSWERS} sequential cold answers per route on chain 1, whose only node is behind the proxy`,
      await serviceThroughStyles(target, proxy, mainnet, ANSWERS),
    );
    section(
      "4. one chain's only node hung under mixed load",
      await frozenChain(target, proxy, mainnet, {
        before: 2 * SECONDS,
        frozen: Math.max(3 * SECONDS, 12),
        after: Math.max(3 * SECONDS, 15),
      }),
    );
    return { name: "real-nodes", lines };
  } finally {
    await service?.stop();
    await nats?.stop();
    await proxy?.stop();
    await devnet.stop();
  }
};
