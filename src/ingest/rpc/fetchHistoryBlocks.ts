import { Effect } from "effect";
import type { ChainRpc } from "../../chains/rpc/ChainRpc.js";
import { ChainRpcError } from "../../chains/rpc/ChainRpcError.js";
import { getLogs } from "../../chains/rpc/getLogs.js";
import type { RpcBlock, RpcLog } from "../../chains/rpc/RpcTypes.js";
import type { ChainBlock } from "../../domain/ChainBlock.js";
import { normalizeHistoryBlock } from "../normalizeBlock.js";

export interface FetchHistoryBlocksParameters {
  readonly from: number;
  readonly to: number;
}

const EMPTY_BLOOM = /^0x0*$/;
const hex = (n: number) => `0x${n.toString(16)}`;

/**
 * Blocks `from`..`to` as history block messages (headers and logs), one per
 * block, empty blocks included so that the block-time index is complete.
 *
 * JSON-RPC: `eth_getLogs` over the range (in the ranges the node accepts, see
 * getLogs), then `eth_getBlockByNumber` (without transactions) for every block,
 * sent in batches. Logs come first, so a node that refuses them costs no header
 * reads. Every log must belong to the header's block hash, or the read is
 * retried (a reorg happened while reading); a block whose bloom says it has logs
 * but got none means the node answered an empty range instead of saying its
 * history is pruned, which some clients do: that is refused as history
 * unavailable rather than published as a block without events.
 */
export const fetchHistoryBlocks = (
  rpc: ChainRpc,
  params: FetchHistoryBlocksParameters,
): Effect.Effect<ReadonlyArray<ChainBlock>, ChainRpcError> =>
  Effect.gen(function* () {
    const chainId = rpc.chainId;
    const logs = yield* getLogs(rpc, {}, params.from, params.to);
    const headers = yield* rpc.batch<RpcBlock<string> | null>(
      Array.from({ length: params.to - params.from + 1 }, (_, i) => ({
        method: "eth_getBlockByNumber",
        params: [hex(params.from + i), false],
      })),
      { block: params.to },
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
          detail: "a block in the range is missing",
        });
      }
      const blockLogs = byBlock.get(header.hash.toLowerCase()) ?? [];
      if (blockLogs.length === 0 && header.logsBloom !== undefined && !EMPTY_BLOOM.test(header.logsBloom)) {
        return yield* new ChainRpcError({
          chainId,
          method: "eth_getLogs",
          reason: "HistoryUnavailable",
          detail: `no logs were returned for block ${Number.parseInt(header.number, 16)}, whose bloom shows it has some (pruned history?)`,
        });
      }
      matched += blockLogs.length;
      blocks.push(normalizeHistoryBlock(chainId, header, blockLogs));
    }
    if (matched !== logs.length) {
      return yield* new ChainRpcError({
        chainId,
        method: "eth_getLogs",
        reason: "Unavailable",
        detail: "logs and headers disagree (reorg while reading?)",
      });
    }
    return blocks;
  });
