import { directChainRpc } from "../../test/support/chainRpc.js";
import { blockRange, fetchAndDecode } from "../lib/fetchAndDecode.js";

/**
 * The ingest benchmarks' floor in a process of its own, started as fresh as the restarted ingest
 * process it is compared with: a new Node process runs its code unoptimised at first, and over
 * the few hundred blocks of a catch-up that costs it about twice its later CPU per block, so a
 * floor run warm in the benchmark's process would count the restart's warm-up as the pipeline's
 * overhead.
 *
 * Arguments: the RPC URL, then `untimedFrom`, `from` and `to`, and optionally the chain id (1) and
 * `no-traces` (blocks are read with their traces unless it is given). Blocks `untimedFrom`..`from - 1`
 * are read first, untimed (what the pipeline read before its timed span began); then it prints
 * `timing`, reads `from`..`to` and prints one JSON line: `{ ms, cpuMs, events }` of that span.
 */
const [rpcUrl, untimedFrom, from, to, chainId, tracing] = process.argv.slice(2);
const traces = tracing !== "no-traces";
// A block of 500 transfers takes anvil seconds to trace: the timeout only has to outlast that.
const rpc = directChainRpc(rpcUrl!, { chainId: Number(chainId ?? 1), timeoutMs: 60_000 });
const client = rpc.rpc;

await fetchAndDecode(client, blockRange(Number(untimedFrom), Number(from) - 1), traces);
process.stdout.write("timing\n");
const cpuBefore = process.cpuUsage();
const started = performance.now();
const events = await fetchAndDecode(client, blockRange(Number(from), Number(to)), traces);
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write(`${JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, events })}\n`);
await rpc.close();
