import { Effect } from "effect";
import type { ChainRpc } from "../../chains/rpc/ChainRpc.js";
import { ChainRpcError } from "../../chains/rpc/ChainRpcError.js";
import type { CallFrame, RpcBlock, RpcReceipt, RpcTransaction } from "../../chains/rpc/RpcTypes.js";
import type { ChainBlock } from "../../domain/ChainBlock.js";
import { normalizeLiveBlock } from "../normalizeBlock.js";

export interface FetchLiveBlockParameters {
  readonly number: number;
  /** Read internal native transfers with debug_traceBlockByHash (callTracer). */
  readonly traces: boolean;
}

type Receipt = RpcReceipt & { blockHash?: string };

/**
 * A whole block as a block message.
 *
 * JSON-RPC: `eth_getBlockByNumber` (with transactions), then `eth_getBlockReceipts`
 * by the block's hash (falling back to `eth_getTransactionReceipt` per
 * transaction, in batches, where no endpoint serves it), and
 * `debug_traceBlockByHash` when traces are on. Every read after the first names
 * the block by its hash, so whichever endpoint serves it answers for the same
 * block; receipts are also checked against it (count and block hash), so a reorg
 * between the calls is caught and the read retried rather than mixed.
 */
export const fetchLiveBlock = (
  rpc: ChainRpc,
  params: FetchLiveBlockParameters,
): Effect.Effect<ChainBlock | undefined, ChainRpcError> =>
  Effect.gen(function* () {
    const chainId = rpc.chainId;
    const at = { block: params.number };
    const block = yield* rpc.call<RpcBlock<RpcTransaction> | null>(
      "eth_getBlockByNumber",
      [`0x${params.number.toString(16)}`, true],
      at,
    );
    if (block === null) return undefined;
    const receipts = yield* rpc
      .call<ReadonlyArray<Receipt> | null>("eth_getBlockReceipts", [block.hash], { ...at, reads: "logs" })
      .pipe(
        Effect.catchIf(
          (error) => error.reason === "MethodUnavailable" || error.reason === "Rejected",
          () =>
            rpc.batch<Receipt>(
              block.transactions.map((tx) => ({ method: "eth_getTransactionReceipt", params: [tx.hash] })),
              { ...at, reads: "logs" },
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
        detail: "receipts do not match the block (reorg while reading?)",
      });
    }
    const traces = params.traces
      ? yield* rpc.call<ReadonlyArray<{ txHash?: string; result?: CallFrame }>>(
          "debug_traceBlockByHash",
          [block.hash, { tracer: "callTracer" }],
          // A trace re-executes the block from its parent's state: endpoints keeping it go first.
          { ...at, reads: "state" },
        )
      : null;
    return normalizeLiveBlock(chainId, block, receipts, traces);
  });
