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
