import { Effect } from "effect";
import type { RpcFaultDetail } from "./ChainRpcError.js";
import type { RpcEndpoint } from "./RpcEndpoint.js";

/** One endpoint's answer to one call: its result, or the fault it gave. */
export type Asked =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly fault: RpcFaultDetail };

/**
 * One call to this endpoint only, bypassing the chain's choice of endpoint: for questions about the
 * endpoint itself (what it keeps, what it serves), which another endpoint's answer cannot settle.
 */
export const askEndpoint = (
  endpoint: RpcEndpoint,
  method: string,
  params: ReadonlyArray<unknown>,
  timeoutMs: number,
  /**
   * How long the call may wait for the endpoint's rate budget and a free slot, the exchange
   * included (then a Timeout fault): a provider that asked for a pause of minutes must not hold a
   * question that has a deadline. Unbounded by default: a probe waits its turn.
   */
  queueMs = Number.POSITIVE_INFINITY,
): Effect.Effect<Asked> =>
  Effect.map(endpoint.send([{ method, params }], timeoutMs, queueMs), ({ outcome }) =>
    outcome.kind === "fault" ? { ok: false, fault: outcome.fault } : outcome.answers[0]!,
  );
