/**
 * A token bucket in real time (the proxy is a test server, so wall-clock rates are what a client sees),
 * plus the rate of calls seen over the last second, which Infura reports as `current_rps`.
 */
export class RateLimiter {
  private tokens: number;
  private refilledAt: number;
  private readonly seen: number[] = [];

  constructor(
    readonly rps: number,
    readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = burst;
    this.refilledAt = now();
  }

  /** How many of `calls` may go now; `wholeOrNothing` grants all of them or none. */
  admit(calls: number, wholeOrNothing: boolean): number {
    this.refill();
    this.observe(calls);
    const available = Math.floor(this.tokens);
    const granted = wholeOrNothing ? (available >= calls ? calls : 0) : Math.min(calls, available);
    this.tokens -= granted;
    return granted;
  }

  /** Whole seconds until `calls` tokens are there again, at least 1 (Retry-After takes integers). */
  retryAfterSeconds(calls: number): number {
    this.refill();
    const missing = Math.min(calls, this.burst) - this.tokens;
    return Math.max(1, Math.ceil(missing / this.rps));
  }

  /** Calls (admitted or not) seen during the last second. */
  currentRps(): number {
    this.forgetOlderThan(this.now() - 1000);
    return this.seen.length;
  }

  private refill(): void {
    const at = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((at - this.refilledAt) / 1000) * this.rps);
    this.refilledAt = at;
  }

  private observe(calls: number): void {
    const at = this.now();
    this.forgetOlderThan(at - 1000);
    for (let i = 0; i < calls; i++) this.seen.push(at);
  }

  private forgetOlderThan(cutoff: number): void {
    let drop = 0;
    while (drop < this.seen.length && this.seen[drop]! < cutoff) drop++;
    if (drop > 0) this.seen.splice(0, drop);
  }
}
