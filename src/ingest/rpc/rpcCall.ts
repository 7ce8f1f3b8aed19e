import { Effect } from "effect";
import type { PublicClient } from "viem";
import { type ChainRpcError, classifyRpcError } from "./ChainRpcError.js";

/**
 * One raw JSON-RPC call. Ingestion reads raw hex and normalises it itself: it is
 * cheaper than viem's formatters on the hot path and keeps every field.
 */
export const rpcCall = <A>(
  client: PublicClient,
  chainId: number,
  method: string,
  params: ReadonlyArray<unknown>,
): Effect.Effect<A, ChainRpcError> =>
  Effect.tryPromise({
    // viem's typed `request` only knows standard methods; ingestion also calls
    // eth_getBlockReceipts and debug_traceBlockByNumber.
    try: () =>
      (client.request as (args: { method: string; params: ReadonlyArray<unknown> }) => Promise<A>)({
        method,
        params,
      }),
    catch: (cause) => classifyRpcError(chainId, method, cause),
  });
