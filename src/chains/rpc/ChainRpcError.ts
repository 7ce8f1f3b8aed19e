import { Data } from "effect";

/**
 * Why a JSON-RPC call failed, in the terms that decide what to do next. Real nodes and providers
 * refuse in their own words, and the same code means different things at different providers
 * (-32005 is a rate limit at one and a result cap at another), so `classifyRpcFault` reads the
 * message, not only the code.
 *
 * - `RangeTooLarge`: eth_getLogs over a block-range cap: ask for `suggested`, or at most `limit` blocks.
 * - `TooManyResults`: eth_getLogs over a result or response-size cap: ask for `suggested`, or less.
 * - `RateLimited`: the endpoint wants fewer requests: wait at least `retryAfterMs`, then try again.
 * - `BatchTooLarge`: the endpoint takes batches of at most `limit` elements (or fewer than sent).
 * - `MethodUnavailable`: this endpoint does not serve the method (another one may).
 * - `HistoryUnavailable`: this endpoint has no state, logs or receipts for that block (pruned, or
 *   not synced that far); `earliest` is the first block it has, when it says.
 * - `Timeout`: no answer in time.
 * - `Unavailable`: the endpoint cannot be reached or failed (refused, DNS, TLS, HTTP 5xx, 401...).
 * - `WrongChain`: the endpoint serves another chain than the one configured.
 * - `Rejected`: the node judged the request itself (reverted, invalid params): any node would.
 * - `BadResponse`: the node answered something we cannot use.
 */
export type RpcFaultReason =
  | "RangeTooLarge"
  | "TooManyResults"
  | "RateLimited"
  | "BatchTooLarge"
  | "MethodUnavailable"
  | "HistoryUnavailable"
  | "Timeout"
  | "Unavailable"
  | "WrongChain"
  | "Rejected"
  | "BadResponse";

/** A block range a node suggested in its refusal, inclusive. */
export interface BlockRange {
  readonly from: number;
  readonly to: number;
}

/** What a refusal said beyond its reason. */
export interface RpcFaultDetail {
  readonly reason: RpcFaultReason;
  /** One line naming the cause in the node's or the transport's words. */
  readonly detail: string;
  readonly suggested?: BlockRange;
  readonly limit?: number;
  /** Most logs one eth_getLogs answer may hold, when the refusal says. */
  readonly resultCap?: number;
  readonly retryAfterMs?: number;
  readonly earliest?: number;
}

export class ChainRpcError extends Data.TaggedError("ChainRpcError")<{
  readonly chainId: number;
  readonly method: string;
  readonly reason: RpcFaultReason;
  /** The endpoint that answered, credentials masked; absent when no endpoint was tried. */
  readonly endpoint?: string;
  readonly detail?: string;
  readonly suggested?: BlockRange;
  readonly limit?: number;
  readonly resultCap?: number;
  readonly retryAfterMs?: number;
  readonly earliest?: number;
  /**
   * Never sent: the call's time ran out in this process's own line for a connection or the rate
   * budget. Says nothing of the node, nor of how heavy the request is.
   */
  readonly unsent?: true;
  readonly cause?: unknown;
}> {
  override get message(): string {
    const what = this.detail ?? (this.cause instanceof Error ? this.cause.message.split("\n")[0] : undefined);
    const where = this.endpoint === undefined ? "" : ` at ${this.endpoint}`;
    return `${this.method} on chain ${this.chainId} failed${where} (${this.reason})${what === undefined ? "" : `: ${what}`}`;
  }
}

export const faultError = (
  chainId: number,
  method: string,
  fault: RpcFaultDetail,
  endpoint?: string,
  unsent?: boolean,
): ChainRpcError =>
  new ChainRpcError({
    chainId,
    method,
    ...fault,
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(unsent === true ? { unsent } : {}),
  });
