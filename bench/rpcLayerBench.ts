import { Pool } from "undici";
import { freePort } from "../src/lib/freePort.js";
import { openTestChainRpc } from "../test/support/chainRpc.js";
import { startChild } from "./lib/child.js";
import { median } from "./lib/stats.js";

/** Calls per arm in each round, and rounds (the arms alternate within each). */
const CALLS = Number(process.env.BENCH_RPC_CALLS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_RPC_ROUNDS ?? 5);

/**
 * `npm run bench -- rpc-layer`: the CPU this process spends on one eth_call through the chain's RPC
 * layer (endpoint choice, connection slot, rate budget, health, JSON-RPC exchange), against a bare
 * undici request of the same body whose answer is parsed. The node is a stub in a process of its own
 * that answers at once, so only the client's side is counted. A wallet's first answer makes about
 * eight such calls on four chains (the sweep and the balances-and-prices multicall per chain), and
 * its CPU is what keeps it from its target: this layer's share is measured here on its own. Arms:
 * the Promise path the read paths take (`ChainRpc.request`), the Effect path (`call`, run as a
 * fiber: getLogs, scans, ingest), each sequential, one call in flight.
 */
export const rpcLayerBench = async () => {
  const port = await freePort();
  const stub = await startChild("bench/servers/jsonRpcStub.ts", { PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  const { rpc, close } = await openTestChainRpc(url);
  const pool = new Pool(url, { connections: 4, keepAliveTimeout: 30_000 });
  // An eth_call the size of a sweep batch's: 500 tokens' words and the lens's code as an override.
  const params = [
    { to: `0x${"cd".repeat(20)}`, data: `0x${"ab".repeat(32 * 500)}`, gas: "0x1d905c0" },
    "0x10",
    { [`0x${"ef".repeat(20)}`]: { code: `0x${"60".repeat(2_000)}` } },
  ];
  const requestBytes = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_call", params }).length;
  const answerBytes = JSON.stringify({ jsonrpc: "2.0", id: 1, result: `0x${"00".repeat(32 * 40)}` }).length;
  const arms: Record<string, () => Promise<unknown>> = {
    bare: async () => {
      const response = await pool.request({
        path: "/",
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_call", params }),
      });
      return (JSON.parse(await response.body.text()) as { result: unknown }).result;
    },
    promise: () => rpc.request("eth_call", params, { block: 16, reads: "state" }),
    effect: () => rpc.run(rpc.call("eth_call", params, { block: 16, reads: "state" })),
  };
  const cpuPerCall = async (arm: () => Promise<unknown>) => {
    const before = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) await arm();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / CALLS;
  };
  const samples: Record<string, Array<number>> = { bare: [], promise: [], effect: [] };
  try {
    // Warmed first, untimed: the first calls compile the code and open the connections.
    for (const arm of Object.values(arms)) for (let i = 0; i < 500; i++) await arm();
    for (let round = 0; round < ROUNDS; round++)
      for (const [name, arm] of Object.entries(arms)) samples[name]!.push(await cpuPerCall(arm));
  } finally {
    await close();
    await pool.close();
    await stub.stop();
  }
  const us = (name: string) => median(samples[name]!);
  const spread = (name: string) =>
    `${Math.min(...samples[name]!).toFixed(0)}..${Math.max(...samples[name]!).toFixed(0)}`;
  return {
    name: "rpc-layer",
    lines: [
      `CPU of this process per eth_call (${(requestBytes / 1024).toFixed(1)} KB request, ${(answerBytes / 1024).toFixed(1)} KB answer; the node a stub in its own process), median of ${ROUNDS} alternated rounds of ${CALLS} sequential calls:`,
      `  bare undici request, body parsed: ${us("bare").toFixed(0)} us (${spread("bare")})`,
      `  ChainRpc.request (Promise path, the read paths): ${us("promise").toFixed(0)} us (${spread("promise")}), x${(us("promise") / us("bare")).toFixed(2)} the bare request`,
      `  ChainRpc.call run as a fiber (Effect code: ingest, getLogs, scans; its first round also goes without the loop): ${us("effect").toFixed(0)} us (${spread("effect")}), x${(us("effect") / us("bare")).toFixed(2)}`,
    ],
  };
};
