import { Effect } from "effect";
import type { PublicClient } from "viem";
import type { ChainBlock } from "../../domain/ChainBlock.js";
import { normalizeHistoryBlock } from "../normalizeBlock.js";
import { ChainRpcError } from "./ChainRpcError.js";
import { getLogsAdaptive } from "./getLogsAdaptive.js";
import type { RpcBlock, RpcLog } from "./RpcTypes.js";
import { rpcCall } from "./rpcCall.js";

export interface FetchHistoryBlocksParameters {
  readonly chainId: number;
  readonly from: number;
  readonly to: number;
}

/**
 * Blocks `from`..`to` as history block messages (headers and logs), one per
 * block, empty blocks included so that the block-time index is complete.
 *
 * JSON-RPC: `eth_getLogs` over the range (split adaptively), and one
 * `eth_getBlockByNumber` (without transactions) per block, sent as a JSON-RPC
 * batch by the client's transport. Every log must belong to the header's block
 * hash, or the read is retried (a reorg happened while reading).
 */
export const fetchHistoryBlocks = (
  client: PublicClient,
  params: FetchHistoryBlocksParameters,
): Effect.Effect<ReadonlyArray<ChainBlock>, ChainRpcError> =>
  Effect.gen(function* () {
    const { chainId } = params;
    const [logs, headers] = yield* Effect.all(
      [
        getLogsAdaptive(client, params),
        Effect.forEach(
          Array.from({ length: params.to - params.from + 1 }, (_, i) => params.from + i),
          (n) =>
            rpcCall<RpcBlock<string> | null>(client, chainId, "eth_getBlockByNumber", [
              `0x${n.toString(16)}`,
              false,
            ]),
          { concurrency: "unbounded" },
        ),
      ],
      { concurrency: 2 },
    );
    const byBlock = new Map<string, Array<RpcLog>>();
    for (const log of logs) {
      const hash = log.blockHash.toLowerCase();
      const list = byBlock.get(hash) ?? [];
      list.push(log);
      byBlock.set(hash, list);
    }
    const blocks: Array<ChainBlock> = [];
    let matched = 0;
    for (const header of headers) {
      if (header === null) {
        return yield* new ChainRpcError({
          chainId,
          method: "eth_getBlockByNumber",
          reason: "Unavailable",
          cause: new Error("a block in the range is missing"),
        });
      }
      const blockLogs = byBlock.get(header.hash.toLowerCase()) ?? [];
      matched += blockLogs.length;
      blocks.push(normalizeHistoryBlock(chainId, header, blockLogs));
    }
    if (matched !== logs.length) {
      return yield* new ChainRpcError({
        chainId,
        method: "eth_getLogs",
        reason: "Unavailable",
        cause: new Error("logs and headers disagree (reorg while reading?)"),
      });
    }
    return blocks;
  });
