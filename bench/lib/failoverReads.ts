import type { ManifestChain } from "../../src/devnet/DevnetManifest.js";
import { startProviderProxy } from "../../test/support/providerProxy.js";
import { describeLatency, longestGap } from "./answerGaps.js";
import { balancesLoad, READ_BUDGET_MS } from "./balancesLoad.js";
import { benchChainRpc } from "./benchChainRpc.js";
import { walletBalanceCalls } from "./walletBalanceReads.js";

/** Clients reading balances at once: cold-ish reads (each one aggregate3 at a pinned block). */
const CLIENTS = 8;

const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - performance.now())));

/**
 * Figure 3, reads: two pass-through proxies in front of one chain's anvil as its primary and
 * fallback endpoints, a ChainRpc over both with its monitor running (as in the service), and 8
 * clients reading balances through the request path for `seconds`; then the primary is stopped
 * (`stopped`: connections refused) or hangs (`hung`: connections accepted, nothing answered), and
 * the clients go on for twice as long. Reports reads that failed and the longest time without any
 * answer, before and after.
 */
export const failoverReads = async (
  chain: ManifestChain,
  seconds: number,
  how: "stopped" | "hung",
): Promise<ReadonlyArray<string>> => {
  const primary = await startProviderProxy({ target: chain.rpc_url, style: "anvil" });
  const fallback = await startProviderProxy({ target: chain.rpc_url, style: "anvil" });
  const { rpc, close } = await benchChainRpc([primary.url, fallback.url], {
    chainId: chain.chain_id,
    monitor: true,
  });
  try {
    const startedAt = performance.now();
    const stopAt = startedAt + seconds * 1000;
    const endAt = stopAt + 2 * seconds * 1000;
    const running = balancesLoad(rpc, walletBalanceCalls(chain), chain.seed_head_block, {
      untilMs: endAt,
      concurrency: CLIENTS,
    });
    await sleepUntil(stopAt);
    const fallbackBefore = fallback.stats().methods.eth_call ?? 0;
    if (how === "stopped") await primary.down();
    else primary.freeze();
    const stoppedAt = performance.now();
    const { samples, settled } = await running;
    // Reads the handler gave up on go on inside the RPC layer; how long, is what its budget bounds.
    const slowest = await Promise.race([
      settled.then((reads) => Math.max(0, ...reads.map((r) => r.ms))),
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 40_000)),
    ]);
    const before = samples.filter((s) => s.endedAt < stoppedAt);
    const after = samples.filter((s) => s.endedAt >= stoppedAt);
    const failedAfter = after.filter((s) => !s.ok);
    const ends = samples.filter((s) => s.ok).map((s) => s.endedAt);
    // Reads begun once the chain had had a moment to notice: what clients see from then on.
    const later = after.filter((s) => s.startedAt > stoppedAt + 1_000);
    const laterFailed = later.filter((s) => !s.ok);
    const primaryAfter = primary.stats().methods.eth_call ?? 0;
    return [
      `primary ${how} after ${seconds} s of ${CLIENTS} clients reading balances through the request path (budget ${READ_BUDGET_MS / 1000} s), fallback a second proxy in front of the same anvil`,
      `  before: ${before.length} reads, ${before.filter((s) => !s.ok).length} failed, ${describeLatency(before.map((s) => s.endedAt - s.startedAt))}, longest time without an answer ${longestGap(ends, startedAt + 500, stoppedAt).toFixed(0)} ms`,
      `  after: ${after.length} reads, ${failedAfter.length} failed${failedAfter.length === 0 ? "" : ` (${failedAfter[0]!.error})`}, longest time without an answer ${longestGap(ends, stoppedAt, endAt).toFixed(0)} ms; of the ${later.length} begun 1 s after the ${how === "stopped" ? "stop" : "hang"}, ${laterFailed.length} failed${laterFailed.length === 0 ? "" : ` (${laterFailed[0]!.error?.slice(0, 160)})`}, the others ${describeLatency(later.filter((s) => s.ok).map((s) => s.endedAt - s.startedAt))}; the fallback answered ${(fallback.stats().methods.eth_call ?? 0) - fallbackBefore} eth_calls after it, ${fallbackBefore} before (the primary ${primaryAfter} in all); the slowest read settled in the RPC layer after ${slowest === undefined ? "more than 40 s" : `${(slowest / 1000).toFixed(1)} s`}`,
    ];
  } finally {
    primary.thaw();
    await close();
    await primary.stop();
    await fallback.stop();
  }
};
