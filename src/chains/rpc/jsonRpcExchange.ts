import type { Dispatcher } from "undici";
import type { RpcFaultDetail } from "./ChainRpcError.js";
import { classifyRefusal, classifyTransportError } from "./classifyRpcFault.js";
import type { RpcRequest } from "./RpcRequest.js";

/** One element's outcome: the node's result, or why it was refused. */
export type RpcAnswer =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly fault: RpcFaultDetail };

/** An HTTP exchange's outcome: an answer per request, or one fault for all of them. */
export type ExchangeOutcome =
  | { readonly kind: "answers"; readonly answers: ReadonlyArray<RpcAnswer> }
  | { readonly kind: "fault"; readonly fault: RpcFaultDetail };

interface JsonRpcReply {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: unknown;
}

/** A reply's error as the classifier reads it; undefined where there is none (absent, or `null`). */
interface ReplyError {
  readonly code: number | undefined;
  readonly message: string;
  readonly data: unknown;
}

/**
 * The node's `error`, whatever it put there: JSON-RPC says an object with a numeric `code` and a
 * string `message`, but a node or proxy may send `null` (read as no error, as some send it beside
 * a result), a bare string, or fields of other types, and none of that may throw here.
 */
const errorOf = (reply: JsonRpcReply): ReplyError | undefined => {
  const error = reply.error;
  if (error === undefined || error === null) return undefined;
  if (typeof error !== "object") return { code: undefined, message: String(error), data: undefined };
  const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
  return {
    code: typeof code === "number" ? code : undefined,
    message:
      typeof message === "string"
        ? message
        : message === undefined
          ? "(no message)"
          : JSON.stringify(message),
    data,
  };
};

/** A parsed answer that is an object (a reply), not `null`, a number, a string or a boolean. */
const isReply = (value: unknown): value is JsonRpcReply => typeof value === "object" && value !== null;

const rangeOf = (request: RpcRequest) => {
  if (request.method !== "eth_getLogs") return undefined;
  const filter = request.params[0] as { fromBlock?: unknown; toBlock?: unknown } | undefined;
  const from = typeof filter?.fromBlock === "string" ? Number.parseInt(filter.fromBlock, 16) : Number.NaN;
  const to = typeof filter?.toBlock === "string" ? Number.parseInt(filter.toBlock, 16) : Number.NaN;
  return Number.isNaN(from) || Number.isNaN(to) ? undefined : { from, to };
};

const rangeField = (request: RpcRequest | undefined) => {
  const range = request === undefined ? undefined : rangeOf(request);
  return range === undefined ? {} : { range };
};

export interface ExchangeTarget {
  readonly dispatcher: Dispatcher;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
}

let nextId = 1;

/**
 * The largest answer read from a node (the dispatcher's `maxResponseSize`): far above a catch-up
 * batch of mainnet blocks and their receipts (tens of MB) or a provider's capped eth_getLogs
 * answer, so only a broken or hostile endpoint meets it, and four of them at once cannot take
 * gigabytes of this process's memory.
 */
export const MAX_RESPONSE_BYTES = 128 * 1024 * 1024;

/** How the detail of an answer over MAX_RESPONSE_BYTES begins. */
export const ANSWER_TOO_LARGE = "the answer is larger than";

/** What an answer over MAX_RESPONSE_BYTES tells the caller: a smaller batch, or a smaller range, may fit. */
const oversized = (requests: ReadonlyArray<RpcRequest>): RpcFaultDetail => {
  const detail = `${ANSWER_TOO_LARGE} ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB`;
  if (requests.length > 1) return { reason: "BatchTooLarge", detail };
  return requests[0]?.method === "eth_getLogs"
    ? { reason: "TooManyResults", detail }
    : { reason: "Rejected", detail };
};

/**
 * Posts `requests` to an endpoint, as one JSON-RPC object when there is one and as a batch
 * otherwise, and reads each element's outcome. Providers refuse in three shapes, all handled: an
 * HTTP error status for the whole request (429 with Retry-After, 5xx), one error object answering
 * a whole batch (geth's "batch too large"), and per-element errors inside an HTTP 200 batch
 * (Alchemy's and QuickNode's 429s). Never throws: a transport failure is a fault too.
 */
export const exchange = async (
  target: ExchangeTarget,
  requests: ReadonlyArray<RpcRequest>,
  options: { readonly signal: AbortSignal; readonly nowMs: () => number },
): Promise<ExchangeOutcome> => {
  const batch = requests.length > 1;
  const firstId = nextId;
  nextId += requests.length;
  const bodies = requests.map((request, i) => ({
    jsonrpc: "2.0",
    id: firstId + i,
    method: request.method,
    params: request.params,
  }));
  let status: number;
  let text: string;
  let retryAfter: string | undefined;
  try {
    const response = await target.dispatcher.request({
      path: target.path,
      method: "POST",
      headers: target.headers,
      body: JSON.stringify(batch ? bodies : bodies[0]),
      signal: options.signal,
    });
    status = response.statusCode;
    const header = response.headers["retry-after"];
    retryAfter = Array.isArray(header) ? header[0] : header;
    text = await response.body.text();
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === "UND_ERR_RES_EXCEEDED_MAX_SIZE")
      return { kind: "fault", fault: oversized(requests) };
    return {
      kind: "fault",
      fault: classifyTransportError(options.signal.aborted ? (options.signal.reason ?? error) : error),
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Cut before it is cleaned: a node's error page may be megabytes.
    const words = text.slice(0, 4096).replace(/\s+/g, " ").trim().slice(0, 120);
    const refusal = { method: requests[0]!.method, httpStatus: status, retryAfter, batch };
    return {
      kind: "fault",
      fault:
        status === 200
          ? { reason: "BadResponse", detail: `the answer is not JSON: ${words}` }
          : classifyRefusal({ ...refusal, message: words || "(empty body)" }, options.nowMs()),
    };
  }
  if (!Array.isArray(parsed) && !isReply(parsed)) {
    const words = text.trim().slice(0, 120);
    return {
      kind: "fault",
      fault:
        status === 200
          ? { reason: "BadResponse", detail: `the answer is not a JSON-RPC object: ${words}` }
          : classifyRefusal(
              { method: requests[0]!.method, httpStatus: status, retryAfter, batch, message: words },
              options.nowMs(),
            ),
    };
  }
  // One object for the whole exchange: the answer to a single request, or a refusal of the batch.
  if (!Array.isArray(parsed)) {
    const reply = parsed;
    const error = errorOf(reply);
    if (error !== undefined || batch || status !== 200) {
      const fault = classifyRefusal(
        {
          method: requests[0]!.method,
          ...rangeField(batch ? undefined : requests[0]!),
          httpStatus: status,
          retryAfter,
          code: error?.code,
          message: error?.message ?? "no result",
          data: error?.data,
          batch,
        },
        options.nowMs(),
      );
      return batch || status !== 200
        ? { kind: "fault", fault }
        : { kind: "answers", answers: [{ ok: false, fault }] };
    }
    if (!("result" in reply))
      return { kind: "fault", fault: { reason: "BadResponse", detail: "no result in the answer" } };
    return { kind: "answers", answers: [{ ok: true, result: reply.result }] };
  }
  if (status !== 200 && parsed.length === 0)
    return {
      kind: "fault",
      fault: classifyRefusal(
        { method: requests[0]!.method, httpStatus: status, retryAfter, message: "", batch },
        options.nowMs(),
      ),
    };
  const byId = new Map<number, JsonRpcReply>();
  for (const reply of parsed as ReadonlyArray<unknown>) {
    if (isReply(reply) && typeof reply.id === "number") byId.set(reply.id, reply);
  }
  // No element names a request, but one is an error (a provider's rate limit with id null, in an
  // array): the refusal of the whole exchange, read as such.
  const anonymous = byId.size === 0 ? (parsed as ReadonlyArray<unknown>).find(isReply) : undefined;
  const anonymousError = anonymous === undefined ? undefined : errorOf(anonymous);
  if (anonymousError !== undefined)
    return {
      kind: "fault",
      fault: classifyRefusal(
        {
          method: requests[0]!.method,
          ...rangeField(batch ? undefined : requests[0]!),
          httpStatus: status,
          retryAfter,
          code: anonymousError.code,
          message: anonymousError.message,
          data: anonymousError.data,
          batch,
        },
        options.nowMs(),
      ),
    };
  const answers = requests.map((request, i): RpcAnswer => {
    const reply = byId.get(firstId + i);
    if (reply === undefined)
      return { ok: false, fault: { reason: "BadResponse", detail: "the batch answer lacks this element" } };
    const error = errorOf(reply);
    if (error !== undefined)
      return {
        ok: false,
        fault: classifyRefusal(
          {
            method: request.method,
            ...rangeField(request),
            httpStatus: status,
            retryAfter,
            code: error.code,
            message: error.message,
            data: error.data,
            batch,
          },
          options.nowMs(),
        ),
      };
    if (!("result" in reply))
      return {
        ok: false,
        fault: { reason: "BadResponse", detail: "the answer has no result for this element" },
      };
    return { ok: true, result: reply.result };
  });
  // geth and Erigon refuse an oversized batch with one error in an array: the whole batch is refused.
  const refusedWhole = answers.find((answer) => !answer.ok && answer.fault.reason === "BatchTooLarge");
  if (batch && refusedWhole !== undefined && !refusedWhole.ok)
    return { kind: "fault", fault: refusedWhole.fault };
  return { kind: "answers", answers };
};
