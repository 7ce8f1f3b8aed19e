import type { ChainRpc } from "../../chains/rpc/ChainRpc.js";
import { LogsRangeTuner } from "../../chains/rpc/LogsRangeTuner.js";

/**
 * The chain's RPC handle as the registry backfill uses it: the same endpoints, budgets and
 * refusal handling, with two differences.
 *
 * - Every JSON-RPC request it sends is counted (`onCalls`), for the backfill's progress.
 * - Its eth_getLogs ranges are tuned apart from everyone else's. Registry reads are filtered on a
 *   few addresses and answer a handful of logs per range; on the shared tuner that density would
 *   grow the range that ingest's unfiltered reads use (up to fourfold per answer once a result cap
 *   is known), and ingest would then pay refusals to shrink it again. It starts from the ceiling the
 *   shared tuner has learned, so a range cap already met is not met again.
 *
 * Calls go through the real handle (its private state stays its own); only `call`, `batch`,
 * `request` and `logsRange` differ, and those are all that getLogs, aggregate3 and the readers use.
 */
export const backfillRpc = (rpc: ChainRpc, onCalls: (count: number) => void): ChainRpc => {
  const own = Object.create(rpc) as ChainRpc;
  Object.defineProperties(own, {
    logsRange: { value: new LogsRangeTuner(rpc.logsRange.ceiling) },
    call: {
      value: (...args: Parameters<ChainRpc["call"]>) => {
        onCalls(1);
        return rpc.call(...args);
      },
    },
    batch: {
      value: (...args: Parameters<ChainRpc["batch"]>) => {
        onCalls(args[0].length);
        return rpc.batch(...args);
      },
    },
    request: {
      value: (...args: Parameters<ChainRpc["request"]>) => {
        onCalls(1);
        return rpc.request(...args);
      },
    },
  });
  return own;
};
