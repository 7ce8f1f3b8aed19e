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
): Effect.Effect<Asked> =>
  // The wait for the endpoint's rate budget and a free slot counts against the same time: a
  // provider that asked for a pause of minutes must not hold the asker that long.
  Effect.map(endpoint.send([{ method, params }], timeoutMs, timeoutMs), ({ outcome }) =>
    outcome.kind === "fault" ? { ok: false, fault: outcome.fault } : outcome.answers[0]!,
  );
