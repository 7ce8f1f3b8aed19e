import { Effect, type Runtime } from "effect";
import { ChainRpc } from "../../src/chains/rpc/ChainRpc.js";
import type { RpcFaultDetail } from "../../src/chains/rpc/ChainRpcError.js";
import { FairSlots } from "../../src/chains/rpc/fairSlots.js";
import type { ExchangeOutcome, RpcAnswer } from "../../src/chains/rpc/jsonRpcExchange.js";
import { RpcEndpoint } from "../../src/chains/rpc/RpcEndpoint.js";
import type { RpcRequest } from "../../src/chains/rpc/RpcRequest.js";

/** A scripted endpoint: `answer` sees each exchange and says what the node answers, or that it hangs. */
export type Script = (requests: ReadonlyArray<RpcRequest>, exchange: number) => ExchangeOutcome | "hang";

export const ok = (result: unknown): RpcAnswer => ({ ok: true, result });
export const no = (fault: RpcFaultDetail): RpcAnswer => ({ ok: false, fault });
export const whole = (fault: RpcFaultDetail): ExchangeOutcome => ({ kind: "fault", fault });
export const answers = (list: ReadonlyArray<RpcAnswer>): ExchangeOutcome => ({
  kind: "answers",
  answers: list,
});

/** A ChainRpc over scripted endpoints (no HTTP), on `runtime` (the live one by default). */
export const makeRpc = (
  scripts: ReadonlyArray<Script>,
  options: {
    maxBatch?: number;
    maxLogsRange?: number;
    timeoutMs?: number;
    connections?: number;
    maxRps?: number;
    runtime?: Runtime.Runtime<never>;
  } = {},
) => {
  const sent: Array<Array<{ endpoint: number; methods: ReadonlyArray<string> }>> = [[]];
  const endpoints = scripts.map((script, index) => {
    let exchanges = 0;
    return new RpcEndpoint(
      `http://node-${index}`,
      {
        url: `http://node-${index}`,
        maxConcurrency: options.connections ?? 4,
        maxBatch: options.maxBatch ?? 40,
        timeoutMs: options.timeoutMs ?? 1_000,
        ...(options.maxRps === undefined ? {} : { maxRps: options.maxRps }),
      },
      (requests, timeoutMs) =>
        Effect.suspend(() => {
          sent[0]!.push({ endpoint: index, methods: requests.map((r) => r.method) });
          const outcome = script(requests, exchanges++);
          return outcome === "hang"
            ? Effect.as(Effect.sleep(timeoutMs), whole({ reason: "Timeout", detail: "no answer in time" }))
            : Effect.succeed(outcome);
        }),
      new FairSlots(options.connections ?? 4),
    );
  });
  const rpc = new ChainRpc(
    { chainId: 1, name: "ethereum", maxHeadLag: 5, maxLogsRange: options.maxLogsRange ?? 10_000 },
    endpoints,
    options.runtime ?? Effect.runSync(Effect.runtime<never>()),
  );
  return { rpc, sent: () => sent[0]! };
};
