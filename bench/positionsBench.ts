import type { Address } from "viem";
import { approveMax, v3Mint } from "../src/devnet/ammActions.js";
import { chainClient } from "../src/devnet/ChainClient.js";
import type { ManifestChain } from "../src/devnet/DevnetManifest.js";
import { startTestDevnet } from "../test/support/devnetFixture.js";
import { startTestNats } from "../test/support/natsServer.js";
import { benchKey, rewriteChainsFile, startServiceProcess } from "./lib/benchEnv.js";
import { load } from "./lib/load.js";
import { replay } from "./lib/replay.js";
import { startRpcCounter } from "./lib/rpcCounter.js";
import { sequential } from "./lib/sequential.js";
import { median, spread } from "./lib/stats.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const REPETITIONS = Number(process.env.BENCH_REPETITIONS ?? 3);

/** Mints `count` small full-range V3 WETH/USDC NFTs (the deep 0.05 % pool) to `recipient`. */
export const mintNfts = async (chain: ManifestChain, recipient: Address, count: number) => {
  const client = chainClient(chain.chain_id, chain.name, chain.rpc_url);
  const from = chain.wallets.deployer as Address;
  const weth = chain.tokens.WETH!.address as Address;
  const usdc = chain.tokens.USDC!.address as Address;
  const manager = chain.contracts.uniswap_v3_position_manager as Address;
  for (const token of [weth, usdc]) await approveMax(client, from, token, manager);
  const [token0, token1] = BigInt(weth) < BigInt(usdc) ? [weth, usdc] : [usdc, weth];
  for (let i = 0; i < count; i++) {
    await v3Mint(client, {
      from,
      positionManager: manager,
      token0,
      token1,
      fee: 500,
      tickLower: -887_270 + 10 * i,
      tickUpper: 887_270 - 10 * i,
      amount0: token0 === weth ? 10n ** 15n : 3_000_000n,
      amount1: token0 === weth ? 3_000_000n : 10n ** 15n,
      recipient,
    });
  }
};

/**
 * Figures, in one run: a cold positions request for the wallet with the most positions
 * (every type the devnet seeds on chain 1) against the gateway path plus a direct replay of its
 * multicall (target: cold p50 <= gateway p50 + 2 x direct p50), its eth_calls; cached p50/p99 at 1
 * and 32 connections; and how a cold request grows with 1, 10 and 100 position NFTs.
 */
export const positionsBench = async () => {
  const devnet = await startTestDevnet();
  const chain = devnet.manifest.chains.find((c) => c.chain_id === 1)!;
  const wallets = {
    one: "0x00000000000000000000000000000000000b0001" as Address,
    ten: "0x00000000000000000000000000000000000b0010" as Address,
    hundred: "0x00000000000000000000000000000000000b0100" as Address,
  };
  await mintNfts(chain, wallets.one, 1);
  await mintNfts(chain, wallets.ten, 10);
  await mintNfts(chain, wallets.hundred, 100);
  const counter = await startRpcCounter(chain.rpc_url);
  const chains = await rewriteChainsFile(devnet.devnet.chainsConfigPath, new Map([[1, counter.url]]));
  const natsA = await startTestNats();
  const natsB = await startTestNats();
  const natsC = await startTestNats();
  const cached = await startServiceProcess(natsA, chains);
  // Counts eth_calls through the proxy and yields the multicall to replay; `cold` reaches anvil
  // directly, for latency (the proxy's hop is neither the service's cost nor the chain's).
  const counted = await startServiceProcess(natsB, chains, { env: { BALANCES_CACHE_ENTRIES: "0" } });
  const cold = await startServiceProcess(natsC, devnet.devnet.chainsConfigPath, {
    env: { BALANCES_CACHE_ENTRIES: "0" },
  });
  const keyA = { "x-svc-api-key": await benchKey(natsA, "bench") };
  const keyB = { "x-svc-api-key": await benchKey(natsB, "bench") };
  const keyC = { "x-svc-api-key": await benchKey(natsC, "bench") };
  const richest = chain.wallets.liquidity!;
  const path = (wallet: string) => `/beta/evm/defi/positions/${wallet}?chain_ids=1`;
  try {
    await load(`${cached.url}${path(richest)}`, { connections: 32, seconds: 2, headers: keyA });
    await sequential(`${counted.url}${path(richest)}`, 1, keyB);
    await sequential(`${cold.url}${path(richest)}`, 1, keyC);

    const gateway: Array<number> = [];
    const cold1: Array<number> = [];
    const direct: Array<number> = [];
    const callsPerCold: Array<number> = [];
    const hot1: Array<{ p50Ms: number; p99Ms: number }> = [];
    const hot32: Array<{ requestsPerSecond: number; p50Ms: number; p99Ms: number }> = [];
    const growth = new Map<string, { cold: Array<number>; direct: Array<number> }>(
      Object.keys(wallets).map((k) => [k, { cold: [], direct: [] }]),
    );
    for (let i = 0; i < REPETITIONS; i++) {
      const before = counter.count("eth_call");
      const countedRun = await sequential(`${counted.url}${path(richest)}`, 1, keyB);
      callsPerCold.push((counter.count("eth_call") - before) / countedRun.count);
      gateway.push((await sequential(`${cold.url}/v1/account`, SECONDS, keyC)).p50Ms);
      cold1.push((await sequential(`${cold.url}${path(richest)}`, SECONDS, keyC)).p50Ms);
      direct.push((await replay(chain.rpc_url, counter.lastCall()!, 200)).p50Ms);
      hot1.push(await sequential(`${cached.url}${path(richest)}`, SECONDS, keyA));
      hot32.push(
        await load(`${cached.url}${path(richest)}`, { connections: 32, seconds: SECONDS, headers: keyA }),
      );
      for (const [name, wallet] of Object.entries(wallets)) {
        const sample = growth.get(name)!;
        await sequential(`${counted.url}${path(wallet)}`, 0.1, keyB);
        sample.cold.push((await sequential(`${cold.url}${path(wallet)}`, SECONDS, keyC)).p50Ms);
        sample.direct.push((await replay(chain.rpc_url, counter.lastCall()!, 100)).p50Ms);
      }
    }
    const ratio = cold1.map((c, i) => c / (gateway[i]! + 2 * direct[i]!));
    const ms = (values: Array<number>) => median(values).toFixed(2);
    return {
      name: "positions",
      lines: [
        `the liquidity wallet (AmmV2 x2, Nft V3 x5 in one pool, NftV4 x2, chain 1), cold, 1 client: p50 ${ms(cold1)} ms; eth_calls per request ${spread(callsPerCold)}`,
        `gateway path (/v1/account), 1 client: p50 ${ms(gateway)} ms; direct replay of the same multicall: p50 ${ms(direct)} ms`,
        `cold p50 / (gateway p50 + 2 x direct p50): ${spread(ratio)}  target <= 1`,
        `cached, 1 client: p50 ${ms(hot1.map((r) => r.p50Ms))} ms, p99 ${ms(hot1.map((r) => r.p99Ms))} ms`,
        `cached, 32 conns: ${spread(
          hot32.map((r) => r.requestsPerSecond),
          0,
        )} req/s, p50 ${median(hot32.map((r) => r.p50Ms))} ms, p99 ${median(hot32.map((r) => r.p99Ms))} ms`,
        ...Object.entries(wallets).map(([name]) => {
          const sample = growth.get(name)!;
          return `cold with ${name === "one" ? 1 : name === "ten" ? 10 : 100} NFT(s): p50 ${ms(sample.cold)} ms, its multicall alone ${ms(sample.direct)} ms`;
        }),
      ],
    };
  } finally {
    await Promise.allSettled([cached.stop(), counted.stop(), cold.stop()]);
    await counter.stop();
    await natsA.stop();
    await natsB.stop();
    await natsC.stop();
    await devnet.stop();
  }
};
