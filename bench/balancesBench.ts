import type { Address, Hex } from "viem";
import { pagingTokenFactoryAbi } from "../src/devnet/abis.js";
import { chainClient, send } from "../src/devnet/ChainClient.js";
import { roleAddress } from "../src/devnet/devAccounts.js";
import { freePort } from "../src/lib/freePort.js";
import { startTestDevnet } from "../test/support/devnetFixture.js";
import { devnetWallet } from "../test/support/devnetWallet.js";
import { startTestNats } from "../test/support/natsServer.js";
import { benchKey, rewriteChainsFile, startServiceProcess } from "./lib/benchEnv.js";
import { startChild } from "./lib/child.js";
import { measureCpu } from "./lib/cpu.js";
import { firstAndComplete } from "./lib/firstAnswers.js";
import { load } from "./lib/load.js";
import { natsServerPid } from "./lib/natsServerPid.js";
import { pinning, pinToCpu } from "./lib/pin.js";
import { replay, replayTogether } from "./lib/replay.js";
import { startRpcCounter } from "./lib/rpcCounter.js";
import { sequential } from "./lib/sequential.js";
import { median, percentile, spread } from "./lib/stats.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Wallets of these many distinct tokens (besides the 1,200-token paging wallet) for the growth figures. */
const GROWTH_SIZES = (process.env.BENCH_BALANCES_GROWTH ?? "10,100").split(",").map(Number);

/** `count` new ERC-20 clones minted to `holder` through the devnet's paging-token factory, 100 per transaction. */
const mintTokens = async (rpcUrl: string, factory: Address, holder: Address, count: number) => {
  const client = chainClient(1, "ethereum", rpcUrl);
  for (let made = 0; made < count; made += 100) {
    await send(client, {
      from: roleAddress("deployer"),
      address: factory,
      abi: pagingTokenFactoryAbi,
      functionName: "createBatch",
      args: [holder, BigInt(Math.min(100, count - made)), 10n ** 18n],
      gas: 25_000_000n,
    });
  }
};
const REPETITIONS = Number(process.env.BENCH_REPETITIONS ?? 3);
/** How long the 1,200-token wallet's discovery may take on each service (its log scan finds the tokens). */
const DISCOVERED_WITHIN_MS = 120_000;

/**
 * In one run: cached balances vs a bare node:http hello at 32 connections (R_app)
 * and vs the gateway path's own `/v1/account` on the same service (R_cached,
 * target >= 0.8; BENCH_PIN=1 pins that service and its nats-server to CPU 0 and
 * the load generator to CPU 1); latency at 1 and 32 clients; a cold request
 * (cache off) against the gateway path plus twice a direct replay of the same
 * multicall against anvil (R_cold, target <= 1), and its eth_call count; paging
 * the 1,200-token wallet; and freshness (transfer mined -> visible).
 *
 * Cold latency is measured on a service that reaches anvil directly; eth_calls
 * are counted, and the multicall to replay captured, on a second cold service
 * whose chain-1 RPC goes through the counting proxy (the proxy's own hop is
 * neither the service's cost nor the chain's).
 */
export const balancesBench = async () => {
  const devnet = await startTestDevnet();
  const chain = devnet.manifest.chains.find((c) => c.chain_id === 1)!;
  const counter = await startRpcCounter(chain.rpc_url);
  const chains = await rewriteChainsFile(devnet.devnet.chainsConfigPath, new Map([[1, counter.url]]));
  const natsA = await startTestNats();
  const natsB = await startTestNats();
  const natsC = await startTestNats();
  const cached = await startServiceProcess(natsA, chains);
  const counted = await startServiceProcess(natsB, chains, { env: { BALANCES_CACHE_ENTRIES: "0" } });
  const cold = await startServiceProcess(natsC, devnet.devnet.chainsConfigPath, {
    env: { BALANCES_CACHE_ENTRIES: "0" },
  });
  const keyA = await benchKey(natsA, "bench");
  const keyB = await benchKey(natsB, "bench");
  const keyC = await benchKey(natsC, "bench");
  if (pinning) {
    pinToCpu(cached.pid, 0);
    pinToCpu(natsServerPid(natsA.url), 0);
    pinToCpu(process.pid, 1);
  }
  const helloPort = await freePort();
  const hello = await startChild("bench/servers/hello.ts", { PORT: String(helloPort) });
  const helloUrl = `http://127.0.0.1:${helloPort}/`;
  const whale = chain.wallets.whale!;
  const cachedUrl = `${cached.url}/v1/evm/balances/${whale}`;
  const accountUrl = `${cached.url}/v1/account`;
  const coldPath = `/v1/evm/balances/${whale}?chain_ids=1`;
  try {
    await load(helloUrl, { connections: 32, seconds: 2 });
    await load(cachedUrl, { connections: 32, seconds: 2, headers: { "x-svc-api-key": keyA } });
    await load(accountUrl, { connections: 32, seconds: 2, headers: { "x-svc-api-key": keyA } });
    await sequential(`${counted.url}${coldPath}`, 1, { "x-svc-api-key": keyB });
    await sequential(`${cold.url}${coldPath}`, 1, { "x-svc-api-key": keyC });

    const bare: Array<number> = [];
    const account: Array<number> = [];
    const gateway1: Array<number> = [];
    const hot: Array<number> = [];
    const hot32p50: Array<number> = [];
    const hot32p99: Array<number> = [];
    const hot1: Array<{ p50Ms: number; p99Ms: number }> = [];
    const cold1: Array<{ p50Ms: number; p99Ms: number; count: number }> = [];
    const direct: Array<{ p50Ms: number; p99Ms: number }> = [];
    const callsPerCold: Array<number> = [];
    const cpu: Array<number> = [];
    for (let i = 0; i < REPETITIONS; i++) {
      bare.push((await load(helloUrl, { connections: 32, seconds: SECONDS })).requestsPerSecond);
      account.push(
        (await load(accountUrl, { connections: 32, seconds: SECONDS, headers: { "x-svc-api-key": keyA } }))
          .requestsPerSecond,
      );
      const measured = await measureCpu({ service: cached.pid }, () =>
        load(cachedUrl, { connections: 32, seconds: SECONDS, headers: { "x-svc-api-key": keyA } }),
      );
      hot.push(measured.result.requestsPerSecond);
      hot32p50.push(measured.result.p50Ms);
      hot32p99.push(measured.result.p99Ms);
      cpu.push((measured.cpuMs.service! * 1000) / (measured.result.requestsPerSecond * SECONDS));
      hot1.push(await sequential(cachedUrl, SECONDS, { "x-svc-api-key": keyA }));
      const callsBefore = counter.count("eth_call");
      const countedRun = await sequential(`${counted.url}${coldPath}`, 1, { "x-svc-api-key": keyB });
      callsPerCold.push((counter.count("eth_call") - callsBefore) / countedRun.count);
      gateway1.push((await sequential(`${cold.url}/v1/account`, SECONDS, { "x-svc-api-key": keyC })).p50Ms);
      cold1.push(await sequential(`${cold.url}${coldPath}`, SECONDS, { "x-svc-api-key": keyC }));
      direct.push(await replay(chain.rpc_url, counter.lastCall()!, 200));
    }

    // Paging the 1,200-token wallet, first through a cold worker, then from the cache.
    const pageAll = async (base: string, key: string) => {
      const start = performance.now();
      let offset: string | undefined;
      let count = 0;
      let pages = 0;
      do {
        const res = await fetch(
          `${base}/v1/evm/balances/${chain.wallets.paging}?chain_ids=1&limit=100${offset ? `&offset=${offset}` : ""}`,
          {
            headers: { "x-svc-api-key": key },
          },
        );
        const body = (await res.json()) as { balances: Array<unknown>; next_offset?: string };
        count += body.balances.length;
        offset = body.next_offset;
        pages++;
      } while (offset !== undefined);
      return { ms: performance.now() - start, count, pages };
    };
    // The devnet's history predates the services (as a real chain's does): the wallet's tokens are
    // found by discovery, whose first answers say DISCOVERY_IN_PROGRESS until its log scan is done.
    // Paging and the growth figures read the wallet once every service has found them all.
    await Promise.all(
      [
        [cold.url, keyC],
        [counted.url, keyB],
        [cached.url, keyA],
      ].map(([url, key]) =>
        firstAndComplete(url!, { "x-svc-api-key": key! }, chain.wallets.paging!, DISCOVERED_WITHIN_MS),
      ),
    );
    const pagingCold = await pageAll(cold.url, keyC);

    // Cost against the number of tokens: one cold first page (all balances read, 100 shaped) of
    // wallets holding 10 .. 10,000 tokens, next to its own multicall replayed alone.
    const holders = new Map<number, string>(
      GROWTH_SIZES.map((n, i) => [n, `0x00000000000000000000000000000000000c${String(i).padStart(4, "0")}`]),
    );
    holders.set(1_200, chain.wallets.paging!);
    const mintStart = performance.now();
    for (const [n, holder] of holders) {
      if (holder !== chain.wallets.paging)
        await mintTokens(
          chain.rpc_url,
          chain.contracts.paging_token_factory as Address,
          holder as Address,
          n,
        );
    }
    const mintSeconds = (performance.now() - mintStart) / 1000;
    const growth: Array<string> = [];
    const head = Number(await chainClient(1, "ethereum", chain.rpc_url).rpc("eth_blockNumber", []));
    for (const [n, holder] of [...holders].sort((a, b) => a[0] - b[0])) {
      const path = `/v1/evm/balances/${holder}?chain_ids=1&limit=100`;
      // Wait until both cold services' indexes have every minted block, and the page reads.
      for (;;) {
        const indexed = await Promise.all(
          [
            [cold.url, keyC],
            [counted.url, keyB],
          ].map(async ([url, key]) => {
            const health = (await (await fetch(`${url}/healthz`)).json()) as {
              chains?: Array<{ chain_id: number; indexed_block?: number | null }>;
            };
            const at = health.chains?.find((c) => c.chain_id === 1)?.indexed_block ?? 0;
            const page =
              at >= head ? await fetch(`${url}${path}`, { headers: { "x-svc-api-key": key! } }) : undefined;
            await page?.arrayBuffer();
            return page?.status === 200;
          }),
        );
        if (indexed.every(Boolean)) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      if (growth.length === 0)
        growth.push(
          `growth set-up: ${GROWTH_SIZES.reduce((a, b) => a + b, 0).toLocaleString("en")} tokens minted in ${mintSeconds.toFixed(1)} s, indexed by both cold services ${((performance.now() - mintStart) / 1000 - mintSeconds).toFixed(1)} s later`,
        );
      const run = await sequential(`${cold.url}${path}`, SECONDS, { "x-svc-api-key": keyC });
      // One counted request: its eth_calls (one per 512 KB of calldata), replayed alone and at once.
      counter.mark();
      await (await fetch(`${counted.url}${path}`, { headers: { "x-svc-api-key": keyB } })).arrayBuffer();
      const bodies = counter.callsSinceMark();
      const alone = await replayTogether(
        bodies.map((body) => ({ url: chain.rpc_url, body })),
        20,
      );
      growth.push(
        `cold first page, ${n.toLocaleString("en")} tokens: p50 ${run.p50Ms.toFixed(1)} ms, its multicall alone ${alone.p50Ms.toFixed(1)} ms (${(run.p50Ms / alone.p50Ms).toFixed(2)}x; ${bodies.length} eth_call${bodies.length === 1 ? "" : "s"}), ${((1000 * run.p50Ms) / n).toFixed(0)} µs per token`,
      );
    }
    await pageAll(cached.url, keyA);
    const pagingWarm = await pageAll(cached.url, keyA);

    // Freshness: a native transfer to the empty wallet, mined at once, then polled until visible.
    const wallet = devnetWallet(chain, devnet.manifest.accounts[0]!.private_key);
    const freshness: Array<number> = [];
    const empty = chain.wallets.empty!;
    const nativeAmount = async () => {
      const res = await fetch(`${cached.url}/v1/evm/balances/${empty}/token/native?chain_ids=1`, {
        headers: { "x-svc-api-key": keyA },
      });
      return ((await res.json()) as { balances: Array<{ amount: string }> }).balances[0]?.amount ?? "0";
    };
    for (let i = 0; i < 20; i++) {
      const before = await nativeAmount();
      await wallet.sendTransaction({ to: empty as Hex, value: 1n });
      const mined = performance.now();
      while ((await nativeAmount()) === before) await new Promise((r) => setTimeout(r, 2));
      freshness.push(performance.now() - mined);
    }
    freshness.sort((a, b) => a - b);

    const rApp = bare.map((b, i) => hot[i]! / b);
    const rCached = account.map((a, i) => hot[i]! / a);
    const rCold = cold1.map((c, i) => c.p50Ms / (gateway1[i]! + 2 * direct[i]!.p50Ms));
    const coldOverDirect = cold1.map((c, i) => c.p50Ms / direct[i]!.p50Ms);
    return {
      name: "balances",
      lines: [
        `bare node:http, 32 conns: ${spread(bare, 0)} req/s`,
        `balances of the whale (3 default chains, cached), 32 conns: ${spread(hot, 0)} req/s, p50 ${median(hot32p50)} ms, p99 ${median(hot32p99)} ms; service CPU ${median(cpu).toFixed(0)} µs/request`,
        `R_app (cached balances / bare req/s): ${spread(rApp)}`,
        `/v1/account on the same service, 32 conns: ${spread(account, 0)} req/s${pinning ? " (service and its nats-server on CPU 0, load generator on CPU 1)" : ""}`,
        `R_cached (cached balances / /v1/account req/s): ${spread(rCached)}  target >= 0.8`,
        `cached, 1 client: p50 ${median(hot1.map((r) => r.p50Ms)).toFixed(2)} ms, p99 ${median(hot1.map((r) => r.p99Ms)).toFixed(2)} ms`,
        `cold (cache off, chain 1), 1 client: p50 ${median(cold1.map((r) => r.p50Ms)).toFixed(2)} ms, p99 ${median(cold1.map((r) => r.p99Ms)).toFixed(2)} ms; eth_calls per request ${spread(callsPerCold)}`,
        `gateway path (/v1/account on the cold service), 1 client: p50 ${median(gateway1).toFixed(2)} ms`,
        `direct replay of the same aggregate3 against anvil: p50 ${median(direct.map((r) => r.p50Ms)).toFixed(2)} ms; cold / direct ${spread(coldOverDirect)}`,
        `R_cold (cold p50 / (gateway p50 + 2 x direct p50)): ${spread(rCold)}  target <= 1`,
        `paging the ${pagingWarm.count}-token wallet by 100: ${pagingCold.pages} pages in ${pagingCold.ms.toFixed(0)} ms cold, ${pagingWarm.ms.toFixed(0)} ms cached`,
        `freshness (transfer mined -> visible in balances), 20 transfers: p50 ${percentile(freshness, 50).toFixed(1)} ms, p99 ${percentile(freshness, 99).toFixed(1)} ms`,
        ...growth,
      ],
    };
  } finally {
    await Promise.allSettled([hello.stop(), cached.stop(), counted.stop(), cold.stop()]);
    await counter.stop();
    await natsA.stop();
    await natsB.stop();
    await natsC.stop();
    await devnet.stop();
  }
};
