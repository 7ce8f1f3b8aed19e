import type { RefusalKind } from "./jsonRpc.js";

export interface ProxyStats {
  /** HTTP requests received (a batch is one). */
  readonly httpRequests: number;
  /** Of those, the ones whose body was a JSON array. */
  readonly batchRequests: number;
  /** JSON-RPC elements received, alone or in batches. */
  readonly elements: number;
  /** Elements that came inside batches. */
  readonly batchElements: number;
  /** Elements per method (elements that are no call at all are not counted here). */
  readonly methods: Readonly<Record<string, number>>;
  /**
   * Refusals given, by kind: one per refused element, or one per HTTP request refused as a whole
   * (an over-size batch, a whole request over the rate).
   */
  readonly refusals: Readonly<Record<RefusalKind, number>>;
  /** HTTP requests the proxy sent upstream, its own lookups included. */
  readonly upstreamCalls: number;
}

const noRefusals = (): Record<RefusalKind, number> => ({
  range: 0,
  results: 0,
  width: 0,
  rate: 0,
  batch: 0,
  method: 0,
  pruned: 0,
  lag: 0,
});

/** Counts what went through the proxy, for tests that assert how a client used its node. */
export class StatsRecorder {
  private httpRequests = 0;
  private batchRequests = 0;
  private elements = 0;
  private batchElements = 0;
  private methods = new Map<string, number>();
  private refusals = noRefusals();
  private upstreamCalls = 0;

  request(batchSize: number | undefined): void {
    this.httpRequests++;
    if (batchSize === undefined) return;
    this.batchRequests++;
    this.batchElements += batchSize;
  }

  element(method: string | undefined): void {
    this.elements++;
    if (method !== undefined) this.methods.set(method, (this.methods.get(method) ?? 0) + 1);
  }

  refused(kind: RefusalKind, count = 1): void {
    this.refusals[kind] += count;
  }

  upstreamCall(): void {
    this.upstreamCalls++;
  }

  snapshot(): ProxyStats {
    return {
      httpRequests: this.httpRequests,
      batchRequests: this.batchRequests,
      elements: this.elements,
      batchElements: this.batchElements,
      methods: Object.fromEntries(this.methods),
      refusals: { ...this.refusals },
      upstreamCalls: this.upstreamCalls,
    };
  }

  reset(): void {
    this.httpRequests = 0;
    this.batchRequests = 0;
    this.elements = 0;
    this.batchElements = 0;
    this.methods = new Map();
    this.refusals = noRefusals();
    this.upstreamCalls = 0;
  }
}
