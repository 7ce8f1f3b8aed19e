import type { ChainConfig, RpcEndpointConfig } from "../ChainsConfig.js";
import type { MonitorSettings } from "./ChainMonitor.js";
import type { ChainRpcSettings } from "./ChainRpc.js";
import type { EndpointSettings } from "./RpcEndpoint.js";

/** Defaults of the chains file's `rpc` settings (docs/chain-access.md says why each). */
export const RPC_DEFAULTS = {
  maxConcurrency: 16,
  maxBatch: 40,
  timeoutMs: 10_000,
  maxLogsRange: 10_000,
  maxHeadLag: 5,
  headPollMs: 2_000,
  probeIntervalS: 300,
} as const;

export interface ResolvedRpcSettings {
  readonly chain: ChainRpcSettings;
  readonly monitor: MonitorSettings;
  readonly endpoints: ReadonlyArray<EndpointSettings>;
}

/** The chain's endpoints in order (`rpc_url` first, then `rpc_urls`, each once). */
export const endpointConfigsOf = (
  chain: Pick<ChainConfig, "rpc_url" | "rpc_urls">,
): ReadonlyArray<RpcEndpointConfig> => {
  const all: Array<RpcEndpointConfig> = [
    ...(chain.rpc_url === undefined ? [] : [chain.rpc_url]),
    ...(chain.rpc_urls ?? []),
  ];
  const seen = new Set<string>();
  return all.filter((entry) => {
    const url = typeof entry === "string" ? entry : entry.url;
    if (seen.has(url)) return false;
    seen.add(url);
    return true;
  });
};

/** Every setting of a chain's RPC access: the chain's `rpc` values, each endpoint's own, or the defaults. */
export const rpcSettingsOf = (chain: ChainConfig): ResolvedRpcSettings => {
  const rpc = chain.rpc ?? {};
  const endpoints = endpointConfigsOf(chain).map((entry): EndpointSettings => {
    const own = typeof entry === "string" ? { url: entry } : entry;
    const maxRps = own.max_rps ?? rpc.max_rps;
    return {
      url: own.url,
      ...(own.headers === undefined ? {} : { headers: own.headers }),
      ...(maxRps === undefined ? {} : { maxRps }),
      maxConcurrency: own.max_concurrency ?? rpc.max_concurrency ?? RPC_DEFAULTS.maxConcurrency,
      maxBatch: own.max_batch ?? rpc.max_batch ?? RPC_DEFAULTS.maxBatch,
      timeoutMs: own.timeout_ms ?? rpc.timeout_ms ?? RPC_DEFAULTS.timeoutMs,
    };
  });
  return {
    chain: {
      chainId: chain.chain_id,
      name: chain.name,
      maxHeadLag: rpc.max_head_lag ?? RPC_DEFAULTS.maxHeadLag,
      maxLogsRange: rpc.max_logs_range ?? RPC_DEFAULTS.maxLogsRange,
    },
    monitor: {
      headPollMs: rpc.head_poll_ms ?? RPC_DEFAULTS.headPollMs,
      probeIntervalMs: (rpc.probe_interval_s ?? RPC_DEFAULTS.probeIntervalS) * 1000,
    },
    endpoints,
  };
};
