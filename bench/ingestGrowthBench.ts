import { Effect } from "effect";
import { createPublicClient, encodeFunctionData, erc20Abi, numberToHex, type PublicClient } from "viem";
import { undiciTransport } from "../src/chains/undiciTransport.js";
import { decodeLogs } from "../src/decoding/index.js";
import { chainClient } from "../src/devnet/ChainClient.js";
import { fetchLiveBlock } from "../src/ingest/rpc/fetchLiveBlock.js";
import { startTestDevnet } from "../test/support/devnetFixture.js";
import { startTestNats } from "../test/support/natsServer.js";
import { chainProgress, parseArrangements, startDeployment, stopIngestion } from "./lib/arrangements.js";
import { natsServerPid } from "./lib/natsServerPid.js";

const SIZES = (process.env.BENCH_INGEST_TXS ?? "10,100,500").split(",").map(Number);
const ARRANGEMENT = parseArrangements(process.env.BENCH_INGEST_GROWTH_ARRANGEMENT ?? "split")[0] ?? "split";
/** Transactions per size: blocks of N transactions, TXS / N of them. */
const TXS = Number(process.env.BENCH_INGEST_GROWTH_TXS ?? 10_000);

/**
 * Ingest against block size: for 10, 100 and 500 ERC-20 transfers per block (BENCH_INGEST_TXS), a
 * backlog of about BENCH_INGEST_GROWTH_TXS transfers is mined while ingestion is down (the service as
 * an ingest process apart from a running gateway+api process, or as one process with
 * BENCH_INGEST_GROWTH_ARRANGEMENT=one); ingestion restarts and its catch-up is timed on /healthz from
 * the first sign of progress to the last block indexed (read, publish, index), against the bare
 * fetch-and-decode loop over the same blocks (8 at a time, the service's own transport). Cost that
 * grows no faster than the work keeps both rates flat.
 */
export const ingestGrowthBench = async () => {
  const devnet = await startTestDevnet();
  const chain = devnet.manifest.chains.find((c) => c.chain_id === 1)!;
  const rpc = undiciTransport(chain.rpc_url, { timeoutMs: 60_000, connections: 16 });
  const client = createPublicClient({ transport: rpc.transport }) as PublicClient;
  const node = chainClient(1, chain.name, chain.rpc_url);
  const sender = chain.wallets.whale!;
  const usdc = chain.tokens.USDC!.address;
  await node.rpc("anvil_impersonateAccount", [sender]);
  await node.rpc("anvil_setBalance", [sender, numberToHex(10n ** 24n)]);
  const nats = await startTestNats();
  const chainsConfig = devnet.devnet.chainsConfigPath;
  let service = await startDeployment(nats, chainsConfig, ARRANGEMENT);
  const lines: Array<string> = [];
  try {
    for (const size of SIZES) {
      const from = (await chainProgress(service.url)).indexed + 1;
      const ingestion = await stopIngestion(nats, chainsConfig, service);
      const blocks = Math.max(2, Math.round(TXS / size));
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
      const head = Number(await client.getBlockNumber());
      const caughtUp = await ingestion.restart(from, head, { "nats-server": natsServerPid(nats.url) });
      service = caughtUp.deployment;
      const ms = caughtUp.lastAt - caughtUp.firstAt;
      // Only the blocks after the first sign of progress are timed, on both sides.
      const timed = Array.from({ length: head - caughtUp.firstBlock }, (_, i) => caughtUp.firstBlock + 1 + i);
      if (timed.length < 2) {
        lines.push(
          `${size} transfers per block: the backlog was caught up before the service answered; raise BENCH_INGEST_GROWTH_TXS`,
        );
        continue;
      }
      const timedTxs = timed.length * size;
      const pipeline = timedTxs / (Math.max(1, ms) / 1000);
      const cpu = Object.entries(caughtUp.cpuMs)
        .map(([name, used]) => `${name} ${((used / timedTxs) * 1000).toFixed(0)} µs`)
        .join(", ");
      const bareStart = performance.now();
      await Effect.runPromise(
        Effect.forEach(
          timed,
          (number) =>
            fetchLiveBlock(client, { chainId: 1, number, traces: true }).pipe(
              Effect.map((block) => (block === undefined ? 0 : decodeLogs(block.logs).length)),
            ),
          { concurrency: 8 },
        ),
      );
      const bare = timedTxs / ((performance.now() - bareStart) / 1000);
      lines.push(
        `${size} transfers per block (${timed.length} of ${head - from + 1} blocks timed, ${timedTxs} transactions): pipeline ${pipeline.toFixed(0)} tx/s over ${(ms / 1000).toFixed(1)} s, bare fetch-and-decode ${bare.toFixed(0)} tx/s, ratio ${(pipeline / bare).toFixed(2)}; CPU per transaction: ${cpu}`,
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
