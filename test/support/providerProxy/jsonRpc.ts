/** The JSON-RPC shapes the proxy reads and writes, and the outcomes its rules give a call. */

export interface RpcCall {
  readonly jsonrpc?: unknown;
  readonly id?: unknown;
  readonly method: string;
  readonly params?: unknown;
}

export interface RpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export type RpcResponse =
  | { readonly jsonrpc: "2.0"; readonly id: unknown; readonly result: unknown }
  | { readonly jsonrpc: "2.0"; readonly id: unknown; readonly error: RpcErrorObject };

/** What a refusal counts as in the proxy's statistics. */
export type RefusalKind = "range" | "results" | "width" | "rate" | "batch" | "method" | "pruned" | "lag";

/**
 * An error the emulated node gives instead of an answer. `httpStatus` and `headers` apply when the call
 * came alone; inside a batch every element travels in the batch's 200 reply, as providers do it.
 */
export interface Refusal {
  readonly kind: RefusalKind;
  readonly error: RpcErrorObject;
  readonly httpStatus?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** How a call ends: answered here, refused here, or relayed as the upstream node answered it. */
export type Final =
  | { readonly type: "answer"; readonly result: unknown }
  | { readonly type: "refuse"; readonly refusal: Refusal }
  | { readonly type: "relay"; readonly response: RpcResponse };

/**
 * A call's fate as a rule decides it: final already, or sent upstream (perhaps rewritten) with `finish`
 * to judge the upstream answer (a receipt's block, a log count) before the client sees it.
 */
export type Outcome =
  | Final
  | {
      readonly type: "forward";
      readonly call: RpcCall;
      readonly finish?: (response: RpcResponse) => Final | Promise<Final>;
    };

export const answer = (result: unknown): Final => ({ type: "answer", result });
export const refuse = (refusal: Refusal): Final => ({ type: "refuse", refusal });
export const relay = (response: RpcResponse): Final => ({ type: "relay", response });
export const forward = (
  call: RpcCall,
  finish?: (response: RpcResponse) => Final | Promise<Final>,
): Outcome => (finish === undefined ? { type: "forward", call } : { type: "forward", call, finish });

export const isCall = (value: unknown): value is RpcCall =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  typeof (value as { method?: unknown }).method === "string";

/** A call without an `id` member is a notification: it gets no reply, not even an error. */
export const isNotification = (call: RpcCall): boolean => !("id" in call);

export const errorResponse = (id: unknown, error: RpcErrorObject): RpcResponse => ({
  jsonrpc: "2.0",
  id: id ?? null,
  error,
});

export const resultResponse = (id: unknown, result: unknown): RpcResponse => ({
  jsonrpc: "2.0",
  id: id ?? null,
  result,
});

/** The reply a final outcome gives the call whose id is `id`. */
export const responseOf = (id: unknown, final: Final): RpcResponse => {
  switch (final.type) {
    case "answer":
      return resultResponse(id, final.result);
    case "refuse":
      return errorResponse(id, final.refusal.error);
    case "relay":
      return { ...final.response, id: id ?? null };
  }
};

export const paramsOf = (call: RpcCall): ReadonlyArray<unknown> =>
  Array.isArray(call.params) ? call.params : [];

/** The call with its params position `index` replaced. */
export const withParam = (call: RpcCall, index: number, value: unknown): RpcCall => {
  const params = [...paramsOf(call)];
  while (params.length < index) params.push(null);
  params[index] = value;
  return { ...call, params };
};

export const hex = (n: number): string => `0x${n.toString(16)}`;
