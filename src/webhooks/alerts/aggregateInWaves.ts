import { aggregate3, type RawCall, type RawResult, splitCalls } from "../../chains/multicall3.js";
import type { ChainRpc } from "../../chains/rpc/ChainRpc.js";

/**
 * eth_calls in flight at once for one read: half of an endpoint's default connections (16), the
 * rest left to requests. A full read of 100,000 wallets in four markets is about 190 eth_calls:
 * sent at once, the last ones waited for a connection longer than their budget and the whole read
 * failed ("no free connection within ... ms"), so the block could never be planned.
 */
export const CALLS_IN_FLIGHT = 8;

/**
 * `calls` at `block` through Multicall3 aggregate3, as `aggregate3` splits them into eth_calls of
 * at most MAX_CALL_BYTES, but at most `inFlight` of those eth_calls at a time, wave after wave,
 * every one at the same block. Results in the order of `calls`.
 */
export const aggregateInWaves = async (
  rpc: ChainRpc,
  calls: ReadonlyArray<RawCall>,
  block: { readonly number: number; readonly hash: string },
  inFlight = CALLS_IN_FLIGHT,
): Promise<ReadonlyArray<RawResult>> => {
  const chunks = splitCalls(calls);
  if (chunks.length <= inFlight) return aggregate3(rpc, calls, { block });
  const results: Array<RawResult> = [];
  // A wave's calls split again into the same eth_calls: splitting is greedy, in order.
  for (let at = 0; at < chunks.length; at += inFlight)
    results.push(...(await aggregate3(rpc, chunks.slice(at, at + inFlight).flat(), { block })));
  return results;
};
