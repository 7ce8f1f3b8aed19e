import { Effect, Scope } from "effect";
import { monitorChain } from "./ChainMonitor.js";
import { ChainRpc } from "./ChainRpc.js";
import type { ChainCapabilities } from "./NodeCapabilities.js";
import { httpEndpoint } from "./RpcEndpoint.js";
import type { ResolvedRpcSettings } from "./rpcSettingsOf.js";

/** A chain's RPC access over HTTP, and the start of its monitor. */
export interface OpenedChainRpc {
  readonly rpc: ChainRpc;
  /**
   * Starts the chain's monitor (once: later calls return the same run), and answers a wait for its
   * first probe round. Only processes that use the chain start it, so a standby ingest process
   * sends its node nothing.
   */
  readonly watch: Effect.Effect<Effect.Effect<ChainCapabilities>>;
}

/** A chain's RPC access over HTTP; its monitor runs in this scope once `watch` starts it. */
export const openChainRpc = (
  settings: ResolvedRpcSettings,
): Effect.Effect<OpenedChainRpc, never, Scope.Scope> =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope;
    const endpoints = yield* Effect.forEach(settings.endpoints, httpEndpoint);
    const rpc = new ChainRpc(settings.chain, endpoints, yield* Effect.runtime<never>());
    const watch = yield* Effect.cached(
      monitorChain(rpc, settings.monitor).pipe(
        Effect.annotateLogs({ chain: settings.chain.chainId }),
        Scope.extend(scope),
      ),
    );
    return { rpc, watch };
  });
