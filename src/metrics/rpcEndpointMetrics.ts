import { Gauge, type Registry } from "prom-client";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import type { RpcFaultReason } from "../chains/rpc/ChainRpcError.js";
import { endpointStatus } from "../chains/rpc/endpointStatus.js";
import type { ChainCapabilities } from "../chains/rpc/NodeCapabilities.js";
import type { RpcEndpoint } from "../chains/rpc/RpcEndpoint.js";
import { endpointLabels } from "./endpointLabels.js";
import { type RunningTotal, totalsCounter } from "./totalsCounter.js";

/** The `reason` label of each refusal reason: a closed set, so the series stay bounded. */
const REFUSAL_LABEL: Record<RpcFaultReason, string> = {
  RangeTooLarge: "range_too_large",
  TooManyResults: "too_many_results",
  RateLimited: "rate_limited",
  BatchTooLarge: "batch_too_large",
  MethodUnavailable: "method_unavailable",
  HistoryUnavailable: "history_unavailable",
  Timeout: "timeout",
  Unavailable: "unavailable",
  WrongChain: "wrong_chain",
  Rejected: "rejected",
  BadResponse: "bad_response",
};
const REFUSAL_REASONS = Object.keys(REFUSAL_LABEL) as ReadonlyArray<RpcFaultReason>;

const CHAIN_LABELS = ["chain_id", "chain"] as const;
const ENDPOINT_LABELS = ["chain_id", "chain", "endpoint"] as const;

type EndpointLabels = Readonly<Record<(typeof ENDPOINT_LABELS)[number], string>>;

interface EndpointView {
  readonly rpc: ChainRpc;
  readonly endpoint: RpcEndpoint;
  readonly labels: EndpointLabels;
}

/**
 * Whether this process has asked any of the chain's endpoints anything. A standby ingest process
 * holds every chain's endpoints but asks nothing of a chain until it takes the chain's lease: its
 * never-asked endpoints would read as down.
 */
const inUse = (rpc: ChainRpc): boolean =>
  rpc.endpoints.some(
    ({ health }) =>
      health.requests > 0 ||
      health.head !== undefined ||
      health.capabilities !== undefined ||
      health.wrongChain !== undefined,
  );

/**
 * The RPC endpoints' metrics of one registry: per endpoint whether it can be asked, its lag, latency,
 * rate limit, requests, errors and refusals; per chain what its endpoints together keep. Everything
 * is read from the chains' ChainRpc at scrape time (EndpointHealth, RateBudget, the probed
 * capabilities). Returns `watch`, which adds a source of chains; a process whose roles each add
 * the same chains (api and ingest share the process's ChainClients) has each chain counted once.
 */
export const makeRpcEndpointMetrics = (registry: Registry) => {
  const sources: Array<() => ReadonlyArray<ChainRpc>> = [];

  const chains = (): ReadonlyArray<ChainRpc> => {
    const byId = new Map<number, ChainRpc>();
    for (const source of sources)
      for (const rpc of source()) if (!byId.has(rpc.chainId) && inUse(rpc)) byId.set(rpc.chainId, rpc);
    return [...byId.values()];
  };
  const chainLabels = (rpc: ChainRpc) => ({ chain_id: String(rpc.chainId), chain: rpc.settings.name });
  const endpoints = (): ReadonlyArray<EndpointView> =>
    chains().flatMap((rpc) => {
      const names = endpointLabels(rpc.endpoints);
      return rpc.endpoints.map((endpoint, i) => ({
        rpc,
        endpoint,
        labels: { ...chainLabels(rpc), endpoint: names[i]! },
      }));
    });

  const endpointGauge = (
    name: string,
    help: string,
    read: (view: EndpointView, now: number) => number | undefined,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ENDPOINT_LABELS,
      registers: [registry],
      collect() {
        this.reset();
        const now = Date.now();
        for (const view of endpoints()) {
          const value = read(view, now);
          if (value !== undefined) this.set(view.labels, value);
        }
      },
    });
  endpointGauge(
    "svc_rpc_endpoint_up",
    "1 while the endpoint can be asked (state ok or lagging), 0 while it fails, serves another chain or has not answered yet.",
    ({ rpc, endpoint }, now) => {
      const state = endpointStatus(rpc, endpoint, now).state;
      return state === "ok" || state === "lagging" ? 1 : 0;
    },
  );
  endpointGauge(
    "svc_rpc_endpoint_head_lag_blocks",
    "Blocks the endpoint's head is behind the highest head any endpoint of the chain reported.",
    ({ rpc, endpoint }, now) => endpointStatus(rpc, endpoint, now).lag ?? undefined,
  );
  endpointGauge(
    "svc_rpc_endpoint_latency_seconds",
    "Moving average of the endpoint's answer time (the newest answer weighs a fifth).",
    ({ endpoint }) =>
      endpoint.health.latencyMs === undefined ? undefined : endpoint.health.latencyMs / 1000,
  );
  endpointGauge(
    "svc_rpc_rate_limit_rps",
    "Elements a second the endpoint may be sent now (configured, or learned from its refusals); absent while unlimited.",
    ({ endpoint }) => endpoint.budget.rate,
  );

  const endpointTotal = (name: string, help: string, read: (endpoint: RpcEndpoint) => number) =>
    totalsCounter({
      name,
      help,
      labelNames: ENDPOINT_LABELS,
      registry,
      read: () =>
        endpoints().map((view) => ({
          labels: view.labels,
          value: read(view.endpoint),
          keeper: view.endpoint.health,
        })),
    });
  endpointTotal(
    "svc_rpc_requests_total",
    "Requests the endpoint answered or refused: an answered batch counts once, each refusal once.",
    (endpoint) => endpoint.health.requests,
  );
  endpointTotal(
    "svc_rpc_errors_total",
    "Refusals and failures of the endpoint (rate limits, caps, timeouts, unreachable...), all reasons together.",
    (endpoint) => endpoint.health.errors,
  );
  totalsCounter({
    name: "svc_rpc_refusals_total",
    help: "Refusals and failures of the endpoint, by reason.",
    labelNames: [...ENDPOINT_LABELS, "reason"] as const,
    registry,
    read: () =>
      endpoints().flatMap(({ endpoint, labels }) =>
        REFUSAL_REASONS.map(
          (reason): RunningTotal<(typeof ENDPOINT_LABELS)[number] | "reason"> => ({
            labels: { ...labels, reason: REFUSAL_LABEL[reason] },
            value: endpoint.health.refusals.get(reason) ?? 0,
            keeper: endpoint.health,
          }),
        ),
      ),
  });

  const chainGauge = (name: string, help: string, read: (caps: ChainCapabilities) => number | undefined) =>
    new Gauge({
      name,
      help,
      labelNames: CHAIN_LABELS,
      registers: [registry],
      collect() {
        this.reset();
        for (const rpc of chains()) {
          const value = read(rpc.capabilities());
          if (value !== undefined) this.set(chainLabels(rpc), value);
        }
      },
    });
  chainGauge(
    "svc_rpc_state_from_block",
    "Oldest block whose state some endpoint of the chain reads (0: an archive node); absent until probed.",
    (caps) => caps.stateFrom,
  );
  chainGauge(
    "svc_rpc_logs_from_block",
    "Oldest block whose logs some endpoint of the chain serves; absent until probed.",
    (caps) => caps.logsFrom,
  );
  chainGauge(
    "svc_rpc_traces",
    "1 when some endpoint of the chain serves traces (internal native transfers), 0 when none does; absent until probed.",
    (caps) => (caps.traces === undefined ? undefined : caps.traces ? 1 : 0),
  );

  return (rpcs: () => ReadonlyArray<ChainRpc>) => {
    sources.push(rpcs);
  };
};
