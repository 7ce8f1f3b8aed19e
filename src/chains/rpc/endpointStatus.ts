import type { ChainNodeStatus, RpcEndpointStatus } from "../../contracts/RpcStatus.js";
import type { ChainRpc } from "./ChainRpc.js";
import type { RpcEndpoint } from "./RpcEndpoint.js";

const stateOf = (
  endpoint: RpcEndpoint,
  lag: number | null,
  maxHeadLag: number,
  now: number,
): RpcEndpointStatus["state"] => {
  const health = endpoint.health;
  if (health.wrongChain !== undefined) return "wrong_chain";
  if (health.isDown(now) || health.failures > 0) return "failing";
  if (health.head === undefined) return "unknown";
  return lag !== null && lag > maxHeadLag ? "lagging" : "ok";
};

/** One endpoint as operators see it. */
export const endpointStatus = (rpc: ChainRpc, endpoint: RpcEndpoint, now: number): RpcEndpointStatus => {
  const health = endpoint.health;
  const best = rpc.bestHead();
  const lag = best === undefined || health.head === undefined ? null : Math.max(0, best - health.head);
  const caps = health.capabilities;
  return {
    url: endpoint.label,
    state: stateOf(endpoint, lag, rpc.settings.maxHeadLag, now),
    head: health.head ?? null,
    lag,
    latency_ms: health.latencyMs === undefined ? null : Math.round(health.latencyMs),
    requests: health.requests,
    errors: health.errors,
    last_error: health.lastError ?? null,
    rate_limit_rps: endpoint.budget.rate === undefined ? null : Math.round(endpoint.budget.rate * 10) / 10,
    max_batch: endpoint.maxBatch,
    state_from_block: caps?.stateFrom ?? null,
    logs_from_block: caps?.logsFrom ?? null,
    block_receipts: caps?.blockReceipts ?? null,
    traces: caps?.traces ?? null,
    probed_at: caps?.probedAt === undefined ? null : new Date(caps.probedAt).toISOString(),
  };
};

/** A chain's endpoints and what they can answer together. */
export const chainNodeStatus = (rpc: ChainRpc, now: number = Date.now()): ChainNodeStatus => {
  const caps = rpc.capabilities();
  return {
    state_from_block: caps.stateFrom ?? null,
    logs_from_block: caps.logsFrom ?? null,
    traces: caps.traces ?? null,
    endpoints: rpc.endpoints.map((endpoint) => endpointStatus(rpc, endpoint, now)),
  };
};
