/** A per-key token bucket: `rate` tokens per second refill up to `burst`. */
export interface BucketLimit {
  readonly rate: number;
  readonly burst: number;
}

/** Outcome of one request against the bucket. */
export type Admission =
  | { readonly admitted: true }
  | { readonly admitted: false; readonly retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  /** Time of the last refill, ms. */
  at: number;
}

/** Buckets idle this long are full again and can be forgotten. */
const IDLE_MS = 10 * 60_000;
/** Most buckets kept; past it the least recently used is forgotten (its key starts full again). */
export const DEFAULT_MAX_BUCKETS = 100_000;

/**
 * Token buckets keyed by API key id, in this worker's memory. With N workers in
 * the queue group a key can reach up to N times its limit at worst; NATS spreads
 * requests evenly, so in practice each worker sees 1/N of a key's traffic.
 * At most `maxBuckets` are kept, least recently used forgotten first: a key
 * that has been quiet while that many others were used only gets its burst back.
 * `now` is injected so tests control time.
 */
export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #now: () => number;
  readonly #maxBuckets: number;
  #lastSweep: number;

  constructor(now: () => number = Date.now, maxBuckets = DEFAULT_MAX_BUCKETS) {
    this.#now = now;
    this.#maxBuckets = maxBuckets;
    this.#lastSweep = now();
  }

  /** Buckets held now. */
  get size(): number {
    return this.#buckets.size;
  }

  /** Takes one token for `key`, or says how long until one is available. */
  admit(key: string, limit: BucketLimit): Admission {
    const now = this.#now();
    this.#sweep(now);
    const bucket = this.#buckets.get(key) ?? { tokens: limit.burst, at: now };
    bucket.tokens = Math.min(limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * limit.rate);
    bucket.at = now;
    // Re-inserted, so the Map's order is least recently used first.
    this.#buckets.delete(key);
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > this.#maxBuckets)
      this.#buckets.delete(this.#buckets.keys().next().value as string);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { admitted: true };
    }
    return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / limit.rate)) };
  }

  #sweep(now: number) {
    if (now - this.#lastSweep < IDLE_MS) return;
    this.#lastSweep = now;
    for (const [key, bucket] of this.#buckets) if (now - bucket.at > IDLE_MS) this.#buckets.delete(key);
  }
}
