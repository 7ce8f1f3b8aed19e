import { Context, Effect, Layer } from "effect";
import { createPublicClient, http, type PublicClient } from "viem";
import { Chains } from "./Chains.js";

/**
 * One viem public client per configured chain, over HTTP with request batching,
 * shared by every service that reads chain state.
 */
export class ChainClients extends Context.Tag("app/chains/ChainClients")<
  ChainClients,
  { readonly get: (chainId: number) => PublicClient | undefined }
>() {}

export const layer = Layer.effect(
  ChainClients,
  Effect.gen(function* () {
    const registry = yield* Chains;
    const clients = new Map<number, PublicClient>(
      registry.chains.map((chain) => [
        chain.chain_id,
        createPublicClient({
          transport: http(chain.rpc_url, { batch: { wait: 0 }, retryCount: 0, timeout: 10_000 }),
        }) as PublicClient,
      ]),
    );
    return { get: (chainId: number) => clients.get(chainId) };
  }),
);
