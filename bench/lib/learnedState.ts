import type { ChainRpc } from "../../src/chains/rpc/ChainRpc.js";

/**
 * What a chain's RPC layer has learned of its first endpoint after some work: the batch size it
 * sends, the eth_getLogs range (and its ceiling), the rate it keeps to and any pause still running.
 * A flow that got slower the second time shows why here.
 */
export const learnedState = (rpc: ChainRpc): string => {
  const endpoint = rpc.endpoints[0]!;
  const rate = endpoint.budget.rate;
  const pausedMs = endpoint.budget.pausedUntil - Date.now();
  return [
    `batch ${endpoint.maxBatch}`,
    `logs range ${rpc.logsRange.size} (ceiling ${rpc.logsRange.ceiling})`,
    `rate ${rate === undefined ? "unlimited" : `${rate.toFixed(1)}/s`}`,
    ...(pausedMs > 0 ? [`paused ${(pausedMs / 1000).toFixed(1)} s more`] : []),
  ].join(", ");
};
