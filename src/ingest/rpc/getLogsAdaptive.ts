import { Effect } from "effect";
import type { PublicClient } from "viem";
import type { ChainRpcError } from "./ChainRpcError.js";
import type { RpcLog } from "./RpcTypes.js";
import { rpcCall } from "./rpcCall.js";

export interface GetLogsAdaptiveParameters {
  readonly chainId: number;
  readonly from: number;
  readonly to: number;
}

/**
 * Every log in `from`..`to` (inclusive).
 *
 * JSON-RPC: `eth_getLogs`. When the node refuses the range (too many results,
 * range too wide, response too large), the range is halved and each half asked
 * for separately, recursively, down to single blocks; other errors propagate.
 * Returns the logs in block order.
 */
export const getLogsAdaptive = (
  client: PublicClient,
  params: GetLogsAdaptiveParameters,
): Effect.Effect<ReadonlyArray<RpcLog>, ChainRpcError> =>
  rpcCall<ReadonlyArray<RpcLog>>(client, params.chainId, "eth_getLogs", [
    { fromBlock: `0x${params.from.toString(16)}`, toBlock: `0x${params.to.toString(16)}` },
  ]).pipe(
    Effect.catchIf(
      (error) => error.reason === "RangeTooLarge" && params.to > params.from,
      () => {
        const middle = Math.floor((params.from + params.to) / 2);
        return Effect.zipWith(
          getLogsAdaptive(client, { ...params, to: middle }),
          getLogsAdaptive(client, { ...params, from: middle + 1 }),
          (left, right) => [...left, ...right],
        );
      },
    ),
  );
