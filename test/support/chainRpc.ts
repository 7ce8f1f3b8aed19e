import { Effect, Exit, Scope } from "effect";
import { ChainRpc } from "../../src/chains/rpc/ChainRpc.js";
import { FairSlots } from "../../src/chains/rpc/fairSlots.js";
import type { ExchangeOutcome } from "../../src/chains/rpc/jsonRpcExchange.js";
import { openChainRpc } from "../../src/chains/rpc/openChainRpc.js";
import { type EndpointSettings, httpEndpoint, RpcEndpoint } from "../../src/chains/rpc/RpcEndpoint.js";
import type { RpcRequest } from "../../src/chains/rpc/RpcRequest.js";
import { type ResolvedRpcSettings, RPC_DEFAULTS } from "../../src/chains/rpc/rpcSettingsOf.js";

/** Settings for a test chain on `urls`, with the service's defaults unless overridden. */
export const testRpcSettings = (
  urls: ReadonlyArray<string>,
  overrides: {
    readonly chainId?: number;
    readonly endpoint?: Partial<Omit<EndpointSettings, "url">>;
    readonly maxLogsRange?: number;
    readonly maxHeadLag?: number;
    readonly headPollMs?: number;
    readonly probeIntervalMs?: number;
  } = {},
): ResolvedRpcSettings => ({
  chain: {
    chainId: overrides.chainId ?? 31337,
    name: "test",
    maxHeadLag: overrides.maxHeadLag ?? RPC_DEFAULTS.maxHeadLag,
    maxLogsRange: overrides.maxLogsRange ?? RPC_DEFAULTS.maxLogsRange,
  },
  monitor: {
    headPollMs: overrides.headPollMs ?? RPC_DEFAULTS.headPollMs,
    probeIntervalMs: overrides.probeIntervalMs ?? RPC_DEFAULTS.probeIntervalS * 1000,
  },
  endpoints: urls.map((url) => ({
    url,
    maxConcurrency: RPC_DEFAULTS.maxConcurrency,
    maxBatch: RPC_DEFAULTS.maxBatch,
    timeoutMs: RPC_DEFAULTS.timeoutMs,
    ...overrides.endpoint,
  })),
});

/** A ChainRpc over real HTTP for a test (monitor included); `close` ends it. */
export const openTestChainRpc = async (
  urls: string | ReadonlyArray<string>,
  overrides: Parameters<typeof testRpcSettings>[1] = {},
) => {
  const scope = await Effect.runPromise(Scope.make());
  const { rpc, watch } = await Effect.runPromise(
    openChainRpc(testRpcSettings(typeof urls === "string" ? [urls] : urls, overrides)).pipe(
      Scope.extend(scope),
    ),
  );
  const firstProbe = await Effect.runPromise(watch);
  return {
    rpc,
    firstProbe: () => Effect.runPromise(firstProbe),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void)),
  };
};

/** A ChainRpc whose single endpoint is `answer` (no HTTP, no monitor): for pure tests of callers. */
export const fakeChainRpc = (
  answer: (requests: ReadonlyArray<RpcRequest>) => ExchangeOutcome | Promise<ExchangeOutcome>,
  chainId = 31337,
): ChainRpc => fakeChainRpcOf([answer], chainId);

/** A ChainRpc over several fake endpoints, `http://fake-<i>.invalid`, each answering as its function does. */
export const fakeChainRpcOf = (
  answers: ReadonlyArray<(requests: ReadonlyArray<RpcRequest>) => ExchangeOutcome | Promise<ExchangeOutcome>>,
  chainId = 31337,
): ChainRpc => {
  const urls = answers.map((_, i) =>
    answers.length === 1 ? "http://fake.invalid" : `http://fake-${i}.invalid`,
  );
  const settings = testRpcSettings(urls, { chainId });
  const endpoints = answers.map((answer, i) => {
    const slots = new FairSlots(16);
    return new RpcEndpoint(
      urls[i]!,
      settings.endpoints[i]!,
      (requests) => Effect.promise(async () => answer(requests)),
      slots,
    );
  });
  return new ChainRpc(settings.chain, endpoints, Effect.runSync(Effect.runtime<never>()));
};

/**
 * A ChainRpc over real HTTP with no monitor (no background calls, so a test counts exactly what its
 * code sends); `onRequest` sees every request sent. `close` ends its connections.
 */
export const directChainRpc = (
  url: string,
  options: {
    readonly chainId?: number;
    readonly timeoutMs?: number;
    readonly maxConcurrency?: number;
    readonly onRequest?: (request: RpcRequest) => void;
  } = {},
) => {
  const scope = Effect.runSync(Scope.make());
  const settings = testRpcSettings([url], {
    chainId: options.chainId ?? 31337,
    endpoint: {
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.maxConcurrency === undefined ? {} : { maxConcurrency: options.maxConcurrency }),
    },
  });
  const http = Effect.runSync(httpEndpoint(settings.endpoints[0]!).pipe(Scope.extend(scope)));
  const onRequest = options.onRequest;
  const endpoint =
    onRequest === undefined
      ? http
      : new RpcEndpoint(
          http.label,
          http.settings,
          (requests, timeoutMs) => {
            for (const request of requests) onRequest(request);
            return http.transport(requests, timeoutMs);
          },
          new FairSlots(16),
        );
  const rpc = new ChainRpc(settings.chain, [endpoint], Effect.runSync(Effect.runtime<never>()));
  return { rpc, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) };
};
