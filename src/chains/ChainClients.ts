import { Context, Effect, Layer } from "effect";
import { Chains } from "./Chains.js";
import type { ChainRpc } from "./rpc/ChainRpc.js";
import type { ChainCapabilities } from "./rpc/NodeCapabilities.js";
import { type OpenedChainRpc, openChainRpc } from "./rpc/openChainRpc.js";
import { rpcSettingsOf } from "./rpc/rpcSettingsOf.js";

/**
 * One RPC access per configured chain (ChainRpc: its endpoints, limits, failover and what each node
 * can answer), shared by every part of this process that reads the chain. A chain's monitor (head
 * polls and capability probes) starts once something in this process uses the chain: the API role
 * at start, an ingest process when it takes the chain's lease. Everything closes with the layer.
 */
export class ChainClients extends Context.Tag("app/chains/ChainClients")<
  ChainClients,
  {
    readonly get: (chainId: number) => ChainRpc | undefined;
    readonly all: () => ReadonlyArray<ChainRpc>;
    /** Starts the chain's monitor if it is not running. */
    readonly watch: (chainId: number) => Effect.Effect<void>;
    /** Starts the chain's monitor if needed, and waits for its first probe of every endpoint. */
    readonly capabilities: (chainId: number) => Effect.Effect<ChainCapabilities>;
  }
>() {}

export const layer = Layer.scoped(
  ChainClients,
  Effect.gen(function* () {
    const registry = yield* Chains;
    const opened = new Map<number, OpenedChainRpc>();
    for (const chain of registry.chains)
      opened.set(chain.chain_id, yield* openChainRpc(rpcSettingsOf(chain)));
    const started = (chainId: number) =>
      opened.get(chainId)?.watch ?? Effect.succeed(Effect.succeed({ complete: true }));
    return {
      get: (chainId: number) => opened.get(chainId)?.rpc,
      all: () => [...opened.values()].map((chain) => chain.rpc),
      watch: (chainId: number) => Effect.asVoid(started(chainId)),
      capabilities: (chainId: number) => Effect.flatten(started(chainId)),
    };
  }),
);
