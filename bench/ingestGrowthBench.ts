import { Effect } from "effect";
import { createPublicClient, encodeFunctionData, erc20Abi, numberToHex, type PublicClient } from "viem";
import { undiciTransport } from "../src/chains/undiciTransport.js";
import { decodeLogs } from "../src/decoding/index.js";
import { chainClient } from "../src/devnet/ChainClient.js";
import { freePort } from "../src/devnet/freePort.js";
import { fetchLiveBlock } from "../src/ingest/rpc/fetchLiveBlock.js";
import { startTestDevnet } from "../test/support/devnetFixture.js";
import { startTestNats } from "../test/support/natsServer.js";
import { startServiceProcess } from "./lib/benchEnv.js";

const SIZES = (process.env.BENCH_INGEST_TXS ?? "10,100,500").split(",").map(Number);
/** Transactions per size: blocks of N transactions, TXS / N of them. */
const TXS = Number(process.env.BENCH_INGEST_GROWTH_TXS ?? 10_000);

const health = async (url: string) => {
  try {
    const body = (await (await fetch(`${url}/healthz`)).json()) as {
      chains?: Array<{ chain_id: number; indexed_block?: number | null; processed_block?: number | null }>;
    };
    const chain = body.chains?.find((c) => c.chain_id === 1);
    return { processed: chain?.processed_block ?? -1, indexed: chain?.indexed_block ?? -1 };
  } catch {
    return { processed: -1, indexed: -1 };
  }
};

/**
 * Ingest against block size: for 10, 100 and 500 ERC-20 transfers per block (BENCH_INGEST_TXS), a
 * backlog of about BENCH_INGEST_GROWTH_TXS transfers is mined while the service is down; the
 * service restarts and its catch-up is timed on /healthz from its first answer to the last block
 * indexed (read, publish, index), against the bare fetch-and-decode loop over the same blocks (8 at
 * a time, the service's own transport). Cost that grows no faster than the work keeps both rates flat.
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
  const port = await freePort();
  let service = await startServiceProcess(nats, devnet.devnet.chainsConfigPath, { port });
  const lines: Array<string> = [];
  /**
   * Restarts the service on its data and follows chain 1's catch-up to `head` on /healthz: from the
   * first answer (the index at some block `from`) until the index reaches `head`. The restart's own
   * time (spawn, start-up, following before HTTP answers) falls outside the timed span.
   */
  const restartAndCatchUp = async (head: number) => {
    const restarting = startServiceProcess(nats, devnet.devnet.chainsConfigPath, {
      port,
      dataDir: service.dataDir,
    });
    let failed: unknown;
    restarting.catch((error: unknown) => {
      failed = error;
    });
    let first: { readonly at: number; readonly indexed: number } | undefined;
    for (;;) {
      if (failed !== undefined) throw failed;
      const { indexed } = await health(`http://127.0.0.1:${port}`);
      const at = performance.now();
      if (indexed >= 0 && first === undefined) first = { at, indexed };
      if (indexed >= head) {
        service = await restarting;
        return { fromBlock: first!.indexed, ms: at - first!.at };
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  try {
    for (const size of SIZES) {
      const from = (await health(service.url)).indexed + 1;
      await service.stop();
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
      const caughtUp = await restartAndCatchUp(head);
      // Only the blocks indexed after the service first answered are timed, on both sides.
      const timed = Array.from({ length: head - caughtUp.fromBlock }, (_, i) => caughtUp.fromBlock + 1 + i);
      if (timed.length < 2) {
        lines.push(
          `${size} transfers per block: the backlog was caught up before the service answered; raise BENCH_INGEST_GROWTH_TXS`,
        );
        continue;
      }
      const timedTxs = timed.length * size;
      const pipeline = timedTxs / (Math.max(1, caughtUp.ms) / 1000);
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
        `${size} transfers per block (${timed.length} of ${head - from + 1} blocks timed, ${timedTxs} transactions): pipeline ${pipeline.toFixed(0)} tx/s over ${(caughtUp.ms / 1000).toFixed(1)} s, bare fetch-and-decode ${bare.toFixed(0)} tx/s, ratio ${(pipeline / bare).toFixed(2)}`,
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
