import { Effect } from "effect";
import { encodeFunctionData, erc20Abi, numberToHex } from "viem";
import { chainClient } from "../src/devnet/ChainClient.js";
import { openBucket } from "../src/nats/JetStreamSetup.js";
import { directChainRpc } from "../test/support/chainRpc.js";
import { startTestDevnet } from "../test/support/devnetFixture.js";
import { startTestNats } from "../test/support/natsServer.js";
import { chainProgress, parseArrangements, startDeployment, stopIngestion } from "./lib/arrangements.js";
import { coldFetchAndDecode } from "./lib/coldFloor.js";
import { blockRange, fetchAndDecode } from "./lib/fetchAndDecode.js";
import { natsServerPid } from "./lib/natsServerPid.js";

const SIZES = (process.env.BENCH_INGEST_TXS ?? "10,100,500").split(",").map(Number);
const ARRANGEMENT = parseArrangements(process.env.BENCH_INGEST_GROWTH_ARRANGEMENT ?? "split")[0] ?? "split";
/** Transactions per size: blocks of N transactions, TXS / N of them. */
// 10,000 made 20 blocks of 500 transfers, and anvil then took over a minute to trace one of them
// 8 at a time (the benchmark's own read timed out and ended the run); 5,000 makes 10.
const TXS = Number(process.env.BENCH_INGEST_GROWTH_TXS ?? 5_000);

/**
 * Ingest against block size: for 10, 100 and 500 ERC-20 transfers per block (BENCH_INGEST_TXS), a
 * backlog of about BENCH_INGEST_GROWTH_TXS transfers is mined while ingestion is down (the service as
 * an ingest process apart from a running gateway+api process, or as one process with
 * BENCH_INGEST_GROWTH_ARRANGEMENT=one); ingestion restarts and is timed on /healthz from its spawn to
 * the last block indexed (read, publish, index), less the same for a one-block backlog, against the
 * bare fetch-and-decode loop over the same blocks (8 at a time, the service's own transport). Cost
 * that grows no faster than the work keeps both rates flat.
 */
export const ingestGrowthBench = async () => {
  const devnet = await startTestDevnet();
  const chain = devnet.manifest.chains.find((c) => c.chain_id === 1)!;
  const rpc = directChainRpc(chain.rpc_url, { chainId: 1, timeoutMs: 60_000 });
  const client = rpc.rpc;
  const node = chainClient(1, chain.name, chain.rpc_url);
  const sender = chain.wallets.whale!;
  const usdc = chain.tokens.USDC!.address;
  await node.rpc("anvil_impersonateAccount", [sender]);
  await node.rpc("anvil_setBalance", [sender, numberToHex(10n ** 24n)]);
  const nats = await startTestNats();
  const chainsConfig = devnet.devnet.chainsConfigPath;
  let service = await startDeployment(nats, chainsConfig, ARRANGEMENT);
  const statuses = await Effect.runPromise(openBucket(await nats.connectAs("api"), "ingest_status"));
  const lines: Array<string> = [];
  /** Mines `blocks` blocks of `size` transfers each, with automine off so each block holds them all. */
  const mine = async (size: number, blocks: number) => {
    await node.rpc("evm_setAutomine", [false]);
    try {
      for (let b = 0; b < blocks; b++) {
        // One sender, one at a time: concurrent sends from one account race for the nonce.
        for (let i = 0; i < size; i++) {
          await node.rpc("eth_sendTransaction", [
            {
              from: sender,
              to: usdc,
              gas: numberToHex(100_000),
              data: encodeFunctionData({
                abi: erc20Abi,
                functionName: "transfer",
                args: [`0x${(0xb10c_0000 + b * 1_000 + i).toString(16).padStart(40, "0")}`, 1n],
              }),
            },
          ]);
        }
        await node.rpc("evm_mine", []);
      }
    } finally {
      await node.rpc("evm_setAutomine", [true]);
    }
  };
  /** Stops ingestion, mines a backlog, restarts it and times it from the spawn to the last block indexed. */
  const catchUp = async (size: number, blocks: number) => {
    const from = (await chainProgress(service.url)).indexed + 1;
    const ingestion = await stopIngestion(nats, chainsConfig, service);
    await mine(size, blocks);
    const head = Number.parseInt(await client.request<string>("eth_blockNumber", []), 16);
    // anvil's first read of a block costs it about twice its later ones: read the backlog once
    // before either side is timed, so the pipeline does not pay it alone (ingestBench.ts).
    await fetchAndDecode(client, blockRange(from, head));
    const caughtUp = await ingestion.restart(from, head, { "nats-server": natsServerPid(nats.url) });
    service = caughtUp.deployment;
    // The restarted follower's failed reads so far (its status counts from its start): reads retried cost again.
    const status = (await statuses.get("1"))?.json<{ rpc_errors: number }>();
    return {
      from,
      head,
      ms: caughtUp.lastAt - caughtUp.spawnAt,
      cpuMs: caughtUp.cpuSinceSpawnMs,
      rpcErrors: status?.rpc_errors ?? 0,
    };
  };
  try {
    for (const size of SIZES) {
      const blocks = Math.max(2, Math.round(TXS / size));
      // A restart with a one-block backlog times what every restart costs (start-up, connecting,
      // the lease, the first read); the backlog's catch-up is what the full restart adds to it. Timing
      // from the first sign of progress instead would leave out the blocks read ahead before it.
      const baseline = await catchUp(size, 1);
      const full = await catchUp(size, blocks);
      const ms = full.ms - baseline.ms;
      const timed = blockRange(full.from, full.head);
      const timedTxs = (timed.length - 1) * size;
      const pipeline = timedTxs / (Math.max(1, ms) / 1000);
      const cpu = Object.entries(full.cpuMs)
        .map(
          ([name, used]) =>
            `${name} ${(((used - (baseline.cpuMs[name] ?? 0)) / timedTxs) * 1000).toFixed(0)} µs`,
        )
        .join(", ");
      // The bare loop reads every block of the backlog once, 8 at a time, with the service's transport,
      // in a new process as the restarted ingest process is (bench/servers/bareLoop.ts says why);
      // and warm in this process, for comparison. Nothing is read untimed first: the pipeline's time
      // runs from its spawn too.
      const cold = await coldFetchAndDecode(
        chain.rpc_url,
        { untimedFrom: full.from, from: full.from, to: full.head },
        {},
      );
      const bare = (timed.length * size) / (cold.ms / 1000);
      const warmStart = performance.now();
      await fetchAndDecode(client, timed);
      const warm = (timed.length * size) / ((performance.now() - warmStart) / 1000);
      lines.push(
        `${size} transfers per block (${timed.length} blocks, ${timed.length * size} transactions): pipeline ${pipeline.toFixed(0)} tx/s (${(full.ms / 1000).toFixed(1)} s from the restart, less ${(baseline.ms / 1000).toFixed(1)} s for a one-block restart), bare fetch-and-decode in a new process ${bare.toFixed(0)} tx/s, ratio ${(pipeline / bare).toFixed(2)} (warm loop ${warm.toFixed(0)} tx/s, ratio ${(pipeline / warm).toFixed(2)}); CPU per transaction beyond the one-block restart: ${cpu}; failed RPC reads ${full.rpcErrors}`,
      );
    }
    return { name: "ingest-growth", lines };
  } finally {
    await service.stop();
    await node.rpc("anvil_stopImpersonatingAccount", [sender]).catch(() => undefined);
    await rpc.close();
    await nats.stop();
    await devnet.stop();
  }
};
