import { Effect } from "effect";
import type { PublicClient } from "viem";
import type { ChainBlock } from "../../domain/ChainBlock.js";
import { normalizeLiveBlock } from "../normalizeBlock.js";
import { ChainRpcError } from "./ChainRpcError.js";
import type { CallFrame, RpcBlock, RpcReceipt, RpcTransaction } from "./RpcTypes.js";
import { rpcCall } from "./rpcCall.js";

export interface FetchLiveBlockParameters {
  readonly chainId: number;
  readonly number: number;
  /** Read internal native transfers with debug_traceBlockByNumber (callTracer). */
  readonly traces: boolean;
}

/**
 * A whole block as a block message.
 *
 * JSON-RPC: `eth_getBlockByNumber` (with transactions), then `eth_getBlockReceipts`
 * by the block's hash (falling back to `eth_getTransactionReceipt` per
 * transaction on nodes without it), and `debug_traceBlockByNumber` when traces
 * are on. Receipts are checked against the block (count and block hash), so a
 * reorg between the calls is caught and the read retried rather than mixed.
 */
export const fetchLiveBlock = (
  client: PublicClient,
  params: FetchLiveBlockParameters,
): Effect.Effect<ChainBlock | undefined, ChainRpcError> =>
  Effect.gen(function* () {
    const { chainId } = params;
    const hex = `0x${params.number.toString(16)}`;
    const block = yield* rpcCall<RpcBlock<RpcTransaction> | null>(client, chainId, "eth_getBlockByNumber", [
      hex,
      true,
    ]);
    if (block === null) return undefined;
    const receipts = yield* rpcCall<ReadonlyArray<RpcReceipt & { blockHash?: string }> | null>(
      client,
      chainId,
      "eth_getBlockReceipts",
      [block.hash],
    ).pipe(
      Effect.catchIf(
        (error) => error.reason === "BadResponse",
        () =>
          Effect.forEach(
            block.transactions,
            (tx) =>
              rpcCall<RpcReceipt & { blockHash?: string }>(client, chainId, "eth_getTransactionReceipt", [
                tx.hash,
              ]),
            { concurrency: 16 },
          ),
      ),
    );
    if (
      receipts === null ||
      receipts.length !== block.transactions.length ||
      receipts.some(
        (r) =>
          r === null || (r.blockHash !== undefined && r.blockHash.toLowerCase() !== block.hash.toLowerCase()),
      )
    ) {
      return yield* new ChainRpcError({
        chainId,
        method: "eth_getBlockReceipts",
        reason: "Unavailable",
        cause: new Error("receipts do not match the block (reorg while reading?)"),
      });
    }
    const traces = params.traces
      ? yield* rpcCall<ReadonlyArray<{ txHash?: string; result?: CallFrame }>>(
          client,
          chainId,
          "debug_traceBlockByNumber",
          [hex, { tracer: "callTracer" }],
        )
      : null;
    return normalizeLiveBlock(chainId, block, receipts, traces);
  });
