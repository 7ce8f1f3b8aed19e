import { Data } from "effect";

/**
 * A JSON-RPC call that failed. `Unavailable` and `Timeout` are retried on a
 * schedule; `RangeTooLarge` makes eth_getLogs split its range; `BadResponse`
 * means the node answered something we cannot use.
 */
export class ChainRpcError extends Data.TaggedError("ChainRpcError")<{
  readonly chainId: number;
  readonly method: string;
  readonly reason: "Unavailable" | "Timeout" | "RangeTooLarge" | "BadResponse";
  readonly cause?: unknown;
}> {
  override get message(): string {
    const detail = this.cause instanceof Error ? `: ${this.cause.message.split("\n")[0]}` : "";
    return `${this.method} on chain ${this.chainId} failed (${this.reason})${detail}`;
  }
}

export const isRetryable = (error: ChainRpcError): boolean =>
  error.reason === "Unavailable" || error.reason === "Timeout";

/** Node messages that mean "ask for a smaller range" (geth, erigon, reth, alchemy, infura, quicknode...). */
const RANGE_TOO_LARGE =
  /(query returned more than|too many|range (is )?too (large|wide)|block range|exceed|limit|response size|-32005)/i;

/** Classifies a thrown transport error. */
export const classifyRpcError = (chainId: number, method: string, cause: unknown): ChainRpcError => {
  const text =
    cause instanceof Error
      ? `${cause.message} ${String((cause as { details?: string }).details ?? "")}`
      : String(cause);
  const reason =
    method === "eth_getLogs" && RANGE_TOO_LARGE.test(text)
      ? "RangeTooLarge"
      : /timed? ?out|timeout/i.test(text)
        ? "Timeout"
        : /ECONNREFUSED|ECONNRESET|fetch failed|socket|network|HTTP request failed|503|502|429/i.test(text)
          ? "Unavailable"
          : "BadResponse";
  return new ChainRpcError({ chainId, method, reason, cause });
};
