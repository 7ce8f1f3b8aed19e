import { splitCalls } from "../src/chains/multicall3.js";
import { rawCall } from "../src/chains/rawCalls.js";
import { healthCrossings } from "../src/webhooks/alerts/healthCrossings.js";
import { readHealthFactors } from "../src/webhooks/alerts/readHealthFactors.js";
import { startTestDevnet } from "../test/support/devnetFixture.js";
import { anvilPid } from "./lib/anvilPid.js";
import { benchChainRpc } from "./lib/benchChainRpc.js";
import { processCpuMs } from "./lib/cpu.js";
import { median } from "./lib/stats.js";

const SIZES = [1_000, 10_000, 100_000];
const REPETITIONS = Number(process.env.BENCH_REPETITIONS ?? "3");

/**
 * What one block's `health_factor_below` evaluation costs for 1k, 10k and 100k watched lending
 * wallets on the devnet's Ethereum chain (an Aave V2 and an Aave V3 pool: two accounts a wallet):
 * the one multicall of every account's `getUserAccountData` at a pinned block (eth_calls it is
 * split into, wall time, the node's CPU and this process's) and the crossing decision after it.
 * The seeded borrower is one of the wallets; the others hold nothing, as most watched wallets of a
 * large deployment do at a given block, and cost the node the same call.
 */
export const positionAlertsBench = async () => {
  const devnet = await startTestDevnet();
  const chain = devnet.manifest.chains.find((c) => c.chain_id === 1)!;
  const pools = chain.lending_markets
    .filter((m) => m.kind === "aave_v2" || m.kind === "aave_v3")
    .map((m) => m.address.toLowerCase());
  const borrower = chain.lending_positions.find((p) => p.purpose === "borrower")!.owner.toLowerCase();
  const { rpc, close } = await benchChainRpc(chain.rpc_url, { chainId: 1 });
  const node = anvilPid(chain.rpc_url);
  const lines: Array<string> = [
    "wallets | accounts | eth_calls | read ms (median) | node CPU ms | service CPU ms (read + decide) | decide ms",
  ];
  try {
    const head = (await rpc.request<{ number: string; hash: string }>(
      "eth_getBlockByNumber",
      ["latest", false],
      {
        head: true,
      },
    ))!;
    const block = { number: Number(head.number), hash: head.hash };
    for (const size of SIZES) {
      const wallets = [
        borrower,
        ...Array.from(
          { length: size - 1 },
          (_, i) => `0x${(0xbe_0000_0000 + i).toString(16).padStart(40, "0")}`,
        ),
      ];
      const accounts = wallets.flatMap((wallet) => pools.map((pool) => ({ wallet, pool })));
      const calls = splitCalls(
        accounts.map((a) => rawCall(a.pool, "getUserAccountData(address)", a.wallet)),
      ).length;
      const reads: Array<number> = [];
      const nodeCpu: Array<number> = [];
      const selfCpu: Array<number> = [];
      const decide: Array<number> = [];
      for (let i = 0; i < REPETITIONS; i++) {
        const nodeBefore = node === undefined ? Number.NaN : processCpuMs(node);
        const cpuBefore = process.cpuUsage();
        const started = performance.now();
        const health = await readHealthFactors(rpc, accounts, block);
        const read = performance.now();
        const { crossings } = healthCrossings(
          [{ webhookId: "bench", threshold: 1.1, wallets }],
          health,
          {},
          block,
        );
        const decided = performance.now();
        const cpu = process.cpuUsage(cpuBefore);
        if (health.length !== accounts.length)
          throw new Error(`${health.length} of ${accounts.length} accounts read`);
        if (crossings.length !== 0) throw new Error("the seeded borrower is above 1.1 at the head");
        reads.push(read - started);
        decide.push(decided - read);
        selfCpu.push((cpu.user + cpu.system) / 1000);
        nodeCpu.push(node === undefined ? Number.NaN : processCpuMs(node) - nodeBefore);
      }
      lines.push(
        `${size} | ${accounts.length} | ${calls} | ${median(reads).toFixed(0)} | ${median(nodeCpu).toFixed(0)} | ${median(selfCpu).toFixed(0)} | ${median(decide).toFixed(1)}`,
      );
    }
  } finally {
    await close();
    await devnet.stop();
  }
  return { name: "position-alerts", lines };
};
