import { Effect } from "effect";
import type { ChainRpc } from "./ChainRpc.js";
import type { ChainRpcError } from "./ChainRpcError.js";
import type { RpcLog } from "./RpcTypes.js";

/** What eth_getLogs filters on besides the block range. */
export interface LogFilter {
  readonly address?: string | ReadonlyArray<string>;
  readonly topics?: ReadonlyArray<string | ReadonlyArray<string> | null>;
}

const hex = (n: number) => `0x${n.toString(16)}`;

/**
 * Every log matching `filter` in blocks `from`..`to` (inclusive), in block order, read in ranges
 * the chain's endpoints accept (LogsRangeTuner): a refusal for range or result size is answered by
 * asking the range it suggests, or a smaller one, from the same block; every other failure ends the
 * read. A single block over a result cap cannot be split: that refusal ends it too.
 */
export const getLogs = (
  rpc: ChainRpc,
  filter: LogFilter,
  from: number,
  to: number,
): Effect.Effect<ReadonlyArray<RpcLog>, ChainRpcError> =>
  Effect.gen(function* () {
    const logs: Array<RpcLog> = [];
    let cursor = from;
    let next: number | undefined;
    while (cursor <= to) {
      const blocks = Math.min(to - cursor + 1, next ?? rpc.logsRange.size);
      next = undefined;
      const end = cursor + blocks - 1;
      const answer = yield* Effect.either(
        rpc.call<ReadonlyArray<RpcLog>>(
          "eth_getLogs",
          [{ ...filter, fromBlock: hex(cursor), toBlock: hex(end) }],
          { block: end, reads: "logs" },
        ),
      );
      if (answer._tag === "Right") {
        for (const log of answer.right) logs.push(log);
        rpc.logsRange.answered(blocks);
        cursor = end + 1;
        continue;
      }
      const error = answer.left;
      if ((error.reason !== "RangeTooLarge" && error.reason !== "TooManyResults") || blocks === 1)
        return yield* Effect.fail(error);
      next = rpc.logsRange.refused(error, blocks);
    }
    return logs;
  });
