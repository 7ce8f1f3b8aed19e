import type { RpcFaultDetail, RpcFaultReason } from "./ChainRpcError.js";
import type { NodeCapabilities } from "./NodeCapabilities.js";

/** First pause after an endpoint fails; it doubles with each failure in a row, up to MAX_DOWN_MS. */
const FIRST_DOWN_MS = 1_000;
const MAX_DOWN_MS = 60_000;
/** Weight of the newest latency in the moving average. */
const LATENCY_WEIGHT = 0.2;
/** Errors within this long count against an endpoint when choosing. */
export const RECENT_ERROR_MS = 30_000;

/**
 * What one process has seen of one endpoint: its head, how fast it answers, whether it is failing
 * and until when it is left alone, which methods it lacks, and its probed capabilities. Updated by
 * every call made through it and by the chain's monitor (ChainMonitor.ts); read when choosing an
 * endpoint for a call and shown in /healthz, admin status, metrics and the TUI.
 */
export class EndpointHealth {
  head: number | undefined;
  /** When `head` was last reported (ms). */
  headSeenAt = 0;
  latencyMs: number | undefined;
  /** Failures in a row (unreachable, timed out); 0 once it answers. */
  failures = 0;
  /** Until when (ms) the endpoint is left alone after failing. */
  downUntil = 0;
  lastError: string | undefined;
  lastErrorAt = 0;
  /** Methods it answered "not available" for, until the next probe looks again. */
  readonly lacks = new Set<string>();
  capabilities: NodeCapabilities | undefined;
  /** Set when it reports another chain id than the configured one: it is never used. */
  wrongChain: number | undefined;
  requests = 0;
  errors = 0;
  /** Refusals met, by reason (rate limits, range caps, pruned history...). */
  readonly refusals = new Map<RpcFaultReason, number>();

  observeHead(head: number, now: number): void {
    this.head = head;
    this.headSeenAt = now;
  }

  answered(latencyMs: number): void {
    this.requests++;
    this.failures = 0;
    this.downUntil = 0;
    this.latencyMs =
      this.latencyMs === undefined
        ? latencyMs
        : this.latencyMs + LATENCY_WEIGHT * (latencyMs - this.latencyMs);
  }

  /** A refusal that says nothing bad about the endpoint (rate, range, a revert) still counts as a request. */
  refused(fault: RpcFaultDetail, now: number): void {
    this.requests++;
    this.errors++;
    this.refusals.set(fault.reason, (this.refusals.get(fault.reason) ?? 0) + 1);
    this.lastError = fault.detail;
    this.lastErrorAt = now;
  }

  /**
   * The endpoint could not be reached or did not answer in time: leave it alone for a while, longer
   * each time it fails again once that while is over. Failures while it is already left alone are
   * calls sent before (concurrent ones all timing out together): one failure, not many.
   */
  failed(fault: RpcFaultDetail, now: number): void {
    this.refused(fault, now);
    if (this.isDown(now)) return;
    this.failures++;
    this.downUntil = now + Math.min(MAX_DOWN_MS, FIRST_DOWN_MS * 2 ** (this.failures - 1));
  }

  isDown(now: number): boolean {
    return this.downUntil > now;
  }
}
