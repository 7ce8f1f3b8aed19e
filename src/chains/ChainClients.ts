import { Context, Effect, Layer } from "effect";
import { createPublicClient, type PublicClient } from "viem";
import { Chains } from "./Chains.js";
import { undiciTransport } from "./undiciTransport.js";

/** Per chain: enough parallel connections for a follower's prefetch plus concurrent requests. */
const CONNECTIONS_PER_CHAIN = 16;

/**
 * One viem public client per configured chain, over keep-alive HTTP connections
 * (see undiciTransport), shared by every service that reads chain state. The
 * connections close with the layer's scope.
 */
export class ChainClients extends Context.Tag("app/chains/ChainClients")<
  ChainClients,
  { readonly get: (chainId: number) => PublicClient | undefined }
>() {}

export const layer = Layer.scoped(
  ChainClients,
  Effect.gen(function* () {
    const registry = yield* Chains;
    const clients = new Map<number, PublicClient>();
    for (const chain of registry.chains) {
      const { transport, close } = undiciTransport(chain.rpc_url, {
        timeoutMs: 10_000,
        connections: CONNECTIONS_PER_CHAIN,
      });
      yield* Effect.addFinalizer(() => Effect.promise(close));
      clients.set(chain.chain_id, createPublicClient({ transport }) as PublicClient);
    }
    return { get: (chainId: number) => clients.get(chainId) };
  }),
);
