import type { ExchangeOutcome } from "../../src/chains/rpc/jsonRpcExchange.js";
import type { RpcRequest } from "../../src/chains/rpc/RpcRequest.js";

/** The block a receipts (`eth_getBlockReceipts`) or state (`eth_getBalance`) question is about. */
const blockOf = (request: RpcRequest) => {
  const params = request.params as ReadonlyArray<string>;
  return Number.parseInt(request.method === "eth_getBalance" ? params[1]! : params[0]!, 16);
};

/**
 * A fake endpoint (for `fakeChainRpcOf`) keeping receipts and state from block `from` on and
 * refusing older ones as reth does; each block asked about is pushed to `asked`.
 */
export const keepsFrom =
  (from: number, asked: Array<number> = []) =>
  (requests: ReadonlyArray<RpcRequest>): ExchangeOutcome => {
    const n = blockOf(requests[0]!);
    asked.push(n);
    return n >= from
      ? { kind: "answers", answers: [{ ok: true, result: "0x0" }] }
      : {
          kind: "answers",
          answers: [
            {
              ok: false,
              fault: {
                reason: "HistoryUnavailable",
                detail:
                  requests[0]!.method === "eth_getBalance"
                    ? `state at block #${n + 1} is pruned`
                    : `pruned history unavailable: requested ${n}, earliest available ${from}`,
              },
            },
          ],
        };
  };

/** A fake endpoint that is down: every exchange fails. */
export const down = (): ExchangeOutcome => ({
  kind: "fault",
  fault: { reason: "Unavailable", detail: "connection refused" },
});

/**
 * A fake endpoint without eth_getBlockReceipts (as some nodes and proxies are), keeping logs from
 * block `from` on: older ones refused as pruned, kept ones answered with one log each. The blocks
 * asked about by eth_getLogs are pushed to `asked`.
 */
export const noBlockReceiptsKeepsFrom =
  (from: number, asked: Array<number> = []) =>
  (requests: ReadonlyArray<RpcRequest>): ExchangeOutcome => {
    const request = requests[0]!;
    if (request.method !== "eth_getLogs")
      return {
        kind: "answers",
        answers: [
          {
            ok: false,
            fault: { reason: "MethodUnavailable", detail: `the method ${request.method} does not exist` },
          },
        ],
      };
    const n = Number.parseInt((request.params[0] as { fromBlock: string }).fromBlock, 16);
    asked.push(n);
    return n >= from
      ? { kind: "answers", answers: [{ ok: true, result: [{ blockNumber: request.params }] }] }
      : {
          kind: "answers",
          answers: [
            {
              ok: false,
              fault: {
                reason: "HistoryUnavailable",
                detail: `pruned history unavailable: requested ${n}, earliest available ${from}`,
              },
            },
          ],
        };
  };
