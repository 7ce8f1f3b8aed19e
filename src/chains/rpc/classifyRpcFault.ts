import type { BlockRange, RpcFaultDetail } from "./ChainRpcError.js";
import { parseLogsRefusal } from "./logsRefusal.js";

/** An error a node or provider answered, for one request (or one element of a batch). */
export interface NodeRefusal {
  readonly method: string;
  /** The block range asked for, for eth_getLogs: a suggested range is checked against it. */
  readonly range?: BlockRange;
  /** HTTP status of the exchange that carried it (200 for an element of a batch answered 200). */
  readonly httpStatus: number;
  /** The exchange's `Retry-After` header, if any. */
  readonly retryAfter?: string | undefined;
  readonly code?: number | undefined;
  readonly message: string;
  readonly data?: unknown;
  /** Whether the request was a batch of several elements. */
  readonly batch: boolean;
}

const RATE_WORDS =
  /rate limit|rate-limit|request rate|requests per second|compute units|too many requests|daily request count|exceeded (?:its|your|the) .*(?:capacity|quota|limit)|capacity exceeded|throughput|credits? (?:per second|exceeded)|request limit/i;
/** Nethermind answers 503 with this when its request pool is full: a rate limit, not a dead node. */
const CONCURRENCY_WORDS = /too many concurrent requests|unable to rent an instance/i;
const BATCH_WORDS =
  /batch (?:is )?too large|batch size|batch limit|too many (?:requests|calls) in (?:a |the )?batch|batch request limit|exceeds? (?:the )?max(?:imum)? batch/i;
const METHOD_WORDS =
  /method not found|does not exist\/is not available|method .{0,60}(?:not (?:supported|available|enabled|allowed|whitelisted)|is not available|unsupported)|unsupported method|not supported|unknown method|namespace .{0,40}(?:disabled|not enabled)/i;
const HISTORY_WORDS =
  /prun(?:ed|ing)|missing trie node|historical state .{0,80}not available|(?:required )?historical state unavailable|state (?:is )?not available|header not found|header for hash not found|block (?:0x[0-9a-f]+ |#?\d+ )?not found|unknown block|resource not found|state histories haven't been fully indexed|no state available|receipts? (?:not|un)available|beyond (?:the )?(?:current )?head|history (?:has been )?expired|blockoutofrange/i;
/**
 * An eth_getLogs filter naming more addresses or topics than the node takes: geth and the providers
 * in front of it (`--rpc.logquerylimit`, -32000 "exceed max addresses or topics per search
 * position"), Infura ("This query contains 5006 filters. The current limit is 5000.", whose -32005
 * would otherwise read as a result cap). The request's own shape: the caller asks for less.
 */
const FILTER_WIDTH_WORDS = /exceed max (?:addresses or )?topics|query contains \d+ filters/i;
/** A web server's or gateway's refusal of the request's body (nginx: "413 Request Entity Too Large"). */
const BODY_SIZE_WORDS =
  /(?:request|entity|payload|body)\b.{0,24}too large|too large.{0,24}\b(?:request|entity|payload|body)\b/i;
const TIMEOUT_WORDS = /timed? ?out|timeout|deadline exceeded|execution aborted/i;
const REJECT_WORDS =
  /revert|out of gas|invalid opcode|invalid (?:argument|params|parameters|input|jump)|insufficient funds|intrinsic gas|gas required exceeds|stack (?:under|over)flow|cannot unmarshal|invalid json|unmarshal/i;

/** Milliseconds a `Retry-After` header (seconds, or an HTTP date) asks for; undefined if absent or odd. */
export const parseRetryAfter = (header: string | undefined, nowMs: number): number | undefined => {
  if (header === undefined || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
};

/** Infura's `data.backoff_seconds`, or a "try again in N seconds" in the text. */
const backoffOf = (data: unknown, message: string): number | undefined => {
  if (typeof data === "object" && data !== null) {
    const seconds = (data as { backoff_seconds?: unknown }).backoff_seconds;
    if (typeof seconds === "number" && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  }
  const said = /(?:try again|retry) (?:in|after) (\d+(?:\.\d+)?) ?(ms|milliseconds?|s|sec|seconds?)\b/i.exec(
    message,
  );
  if (said === null) return undefined;
  const value = Number(said[1]);
  return said[2]!.startsWith("m") ? value : value * 1000;
};

const numberIn = (pattern: RegExp, text: string): number | undefined => {
  const match = pattern.exec(text);
  return match === null ? undefined : Number(match[1]!.replace(/[,.]/g, ""));
};

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim().slice(0, 300);

/**
 * What a node's refusal means for the caller. The order matters: a rate-limit text can carry the
 * code -32005 that other providers use for result caps, and a method-not-found text can contain
 * "is not available", which elsewhere means pruned state.
 */
export const classifyRefusal = (refusal: NodeRefusal, nowMs: number): RpcFaultDetail => {
  const { method, message, code, httpStatus } = refusal;
  const text = `${message} ${typeof refusal.data === "string" ? refusal.data : ""}`;
  const detail = oneLine(
    `${httpStatus === 200 ? "" : `HTTP ${httpStatus}: `}${message}${code === undefined ? "" : ` (code ${code})`}`,
  );
  // A contract's revert is the call's own answer, whatever its reason says (a revert reading "rate
  // limit" or "not supported" is the contract's text, not the node's), and whatever HTTP status a
  // provider sends it with.
  if (code === 3 || /^execution reverted/i.test(message)) return { reason: "Rejected", detail };
  if (httpStatus === 429 || code === 429 || RATE_WORDS.test(text) || CONCURRENCY_WORDS.test(text)) {
    const retryAfterMs = parseRetryAfter(refusal.retryAfter, nowMs) ?? backoffOf(refusal.data, message);
    return { reason: "RateLimited", detail, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  }
  if (refusal.batch && (BATCH_WORDS.test(text) || httpStatus === 413 || /response too large/i.test(text))) {
    const limit = numberIn(/(?:limit|max(?:imum)?|at most|exceeds?)\D{0,20}(\d[\d,.]*)/i, text);
    return { reason: "BatchTooLarge", detail, ...(limit === undefined ? {} : { limit }) };
  }
  if (code === -32601) return { reason: "MethodUnavailable", detail };
  // A range cap is read before the words of a missing method: "ranges over 10000 blocks are not
  // supported" is a cap, and taking it for a missing method marked eth_getLogs unserved there.
  if (method === "eth_getLogs") {
    if (FILTER_WIDTH_WORDS.test(text)) return { reason: "Rejected", detail };
    const logs = parseLogsRefusal(text, refusal.range);
    if (logs !== undefined) return { ...logs, detail };
    // QuickNode answers its range cap with 413 (its words are read above); a 413 that speaks of
    // the request's body is about the filter's width, which a smaller range would not help.
    if (httpStatus === 413)
      return { reason: BODY_SIZE_WORDS.test(text) ? "Rejected" : "RangeTooLarge", detail };
  }
  if (METHOD_WORDS.test(text)) return { reason: "MethodUnavailable", detail };
  if (code === 4444 || HISTORY_WORDS.test(text)) {
    const earliest = numberIn(/(?:earliest (?:available|block)|available from block)\D{0,4}(\d+)/i, text);
    return { reason: "HistoryUnavailable", detail, ...(earliest === undefined ? {} : { earliest }) };
  }
  if (httpStatus === 408 || httpStatus === 504 || code === -32002 || TIMEOUT_WORDS.test(text))
    return { reason: "Timeout", detail };
  if (httpStatus !== 200) return { reason: "Unavailable", detail };
  // -32005 that named no rate and no range is a result limit at Infura-style providers.
  if (method === "eth_getLogs" && code === -32005) return { reason: "TooManyResults", detail };
  if (REJECT_WORDS.test(text) || code === 3 || code === -32602) return { reason: "Rejected", detail };
  return { reason: "BadResponse", detail };
};

/** Node.js and undici error codes, and what an operator should read for them. */
const TRANSPORT_CODES: Record<string, { reason: "Unavailable" | "Timeout"; words: string }> = {
  ECONNREFUSED: { reason: "Unavailable", words: "connection refused" },
  ECONNRESET: { reason: "Unavailable", words: "connection reset by the node" },
  EPIPE: { reason: "Unavailable", words: "connection closed by the node" },
  UND_ERR_SOCKET: { reason: "Unavailable", words: "connection closed by the node" },
  UND_ERR_CLOSED: { reason: "Unavailable", words: "connection closed" },
  ENOTFOUND: { reason: "Unavailable", words: "DNS lookup failed (no such host)" },
  EAI_AGAIN: { reason: "Unavailable", words: "DNS lookup failed (temporary)" },
  EHOSTUNREACH: { reason: "Unavailable", words: "host unreachable" },
  ENETUNREACH: { reason: "Unavailable", words: "network unreachable" },
  UND_ERR_CONNECT_TIMEOUT: { reason: "Timeout", words: "connect timed out" },
  UND_ERR_HEADERS_TIMEOUT: { reason: "Timeout", words: "no answer in time" },
  UND_ERR_BODY_TIMEOUT: { reason: "Timeout", words: "answer not finished in time" },
  ETIMEDOUT: { reason: "Timeout", words: "connection timed out" },
  UND_ERR_ABORTED: { reason: "Timeout", words: "no answer in time" },
  ABORT_ERR: { reason: "Timeout", words: "no answer in time" },
};

const codeOf = (error: unknown): string | undefined => {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
};

const messageOf = (error: unknown): string =>
  error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);

/** A thrown transport error (no answer from the node) as a fault naming its cause. */
export const classifyTransportError = (error: unknown): RpcFaultDetail => {
  const code = codeOf(error);
  const known = code === undefined ? undefined : TRANSPORT_CODES[code];
  if (known !== undefined) return { reason: known.reason, detail: `${known.words} (${code})` };
  if (code !== undefined && /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(code))
    return { reason: "Unavailable", detail: oneLine(`TLS: ${messageOf(error)} (${code})`) };
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError"))
    return { reason: "Timeout", detail: "no answer in time" };
  const message = messageOf(error);
  return {
    reason: TIMEOUT_WORDS.test(message) ? "Timeout" : "Unavailable",
    detail: oneLine(code === undefined ? message : `${message} (${code})`),
  };
};
