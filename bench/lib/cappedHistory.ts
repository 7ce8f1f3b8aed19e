import { startAnvil } from "../../test/support/anvil.js";
import { type ProviderProxyOptions, startProviderProxy } from "../../test/support/providerProxy.js";
import { benchChainRpc } from "./benchChainRpc.js";
import { type HistoryRead, readHistoryAsIngest, sameHistory } from "./historyRead.js";
import { mineLogHistory } from "./logChain.js";
import { describeTally, type ProxyTally, tallyOf } from "./proxyTally.js";
import { median, spread } from "./stats.js";

/** The 50-block range cap of a QuickNode plan, and a rate limit with a burst. */
const RANGE_CAP = 50;
const RATE = { rps: 200, burst: 100 };
const CAPPED: Omit<ProviderProxyOptions, "target"> = {
  style: "quicknode",
  maxLogsRange: RANGE_CAP,
  rateLimit: RATE,
};
const UNCAPPED: Omit<ProviderProxyOptions, "target"> = { style: "anvil" };

/** One history read of blocks 1..head through a fresh proxy and ChainRpc (a first backfill). */
const readThrough = async (
  target: string,
  options: Omit<ProviderProxyOptions, "target">,
  head: number,
  limitMs: number,
): Promise<{ read: HistoryRead; tally: ProxyTally }> => {
  const proxy = await startProviderProxy({ target, ...options });
  const { rpc, close } = await benchChainRpc(proxy.url, { chainId: 31337 });
  try {
    const read = await readHistoryAsIngest(rpc, 1, head, limitMs);
    return { read, tally: tallyOf(proxy.stats()) };
  } finally {
    await close();
    await proxy.stop();
  }
};

/**
 * Figure 2: a backfill of `blocks` blocks on a bare anvil, read as ingest reads history, through a
 * QuickNode-style proxy capped at 50-block eth_getLogs ranges and 200 elements/s against the same
 * read through a pass-through proxy, alternately `repetitions` times: eth_getLogs calls against
 * N/50, refusals, HTTP requests and elements, and time (against the uncapped read and against the
 * least time the rate limit allows for the elements the read needs).
 */
export const cappedHistory = async (
  blocks: number,
  repetitions: number,
  limitMs: number,
): Promise<ReadonlyArray<string>> => {
  const anvil = await startAnvil({ chainId: 31337 });
  try {
    const setUp = performance.now();
    const chain = await mineLogHistory(anvil.rpcUrl, { blocks, every: 10, logsPerTx: 20 });
    const minedMs = performance.now() - setUp;
    const uncapped: Array<{ read: HistoryRead; tally: ProxyTally }> = [];
    const capped: Array<{ read: HistoryRead; tally: ProxyTally }> = [];
    for (let rep = 0; rep < repetitions; rep++) {
      uncapped.push(await readThrough(anvil.rpcUrl, UNCAPPED, chain.head, limitMs));
      capped.push(await readThrough(anvil.rpcUrl, CAPPED, chain.head, limitMs));
      // A read given up once would be given up again: one is enough to report it.
      if (!capped.at(-1)!.read.finished) break;
    }
    const reference = uncapped[0]!.read;
    const medianOf = (runs: typeof capped, pick: (t: ProxyTally) => number) =>
      median(runs.map((r) => pick(r.tally)));
    const elements = medianOf(uncapped, (t) => t.elements);
    const floorMs = (Math.max(0, elements - RATE.burst) / RATE.rps) * 1000;
    const getLogs = medianOf(capped, (t) => t.getLogs);
    const lastCapped = capped.at(-1)!;
    const failed = lastCapped.read.failedSteps;
    return [
      `chain: ${chain.head} blocks on a bare anvil, ${chain.logs} logs (20 in every 10th block), mined in ${(minedMs / 1000).toFixed(1)} s; read as ingest reads history (steps of at most 500 blocks)`,
      `no caps (pass-through proxy): ${median(uncapped.map((r) => r.read.ms)).toFixed(0)} ms; ${describeTally(uncapped[0]!.tally)}`,
      `capped (QuickNode style, ${RANGE_CAP}-block ranges, ${RATE.rps} elements/s, burst ${RATE.burst}): ${lastCapped.read.finished ? "" : ">= "}${spread(capped.map((r, i) => r.read.ms / uncapped[i]!.read.ms))}x the uncapped time, ${(median(capped.map((r) => r.read.ms)) / floorMs).toFixed(2)}x its rate floor (${(floorMs / 1000).toFixed(1)} s for ${elements} elements)`,
      `capped: ${getLogs} eth_getLogs against N/${RANGE_CAP} = ${Math.ceil(chain.head / RANGE_CAP)} (${(getLogs / Math.ceil(chain.head / RANGE_CAP)).toFixed(2)}x); ${describeTally(lastCapped.tally)}; ${
        lastCapped.read.finished
          ? sameHistory(lastCapped.read, reference)
            ? "same blocks and logs as uncapped"
            : "NOT the uncapped read's blocks and logs"
          : `given up after ${limitMs / 1000} s with ${lastCapped.read.blocks} blocks read`
      }${failed === 0 ? "" : `; ${failed} failed steps, the last: ${lastCapped.read.lastError}`}`,
    ];
  } finally {
    await anvil.stop();
  }
};
