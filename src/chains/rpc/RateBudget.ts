import { Clock, Effect, Random } from "effect";

/** Longest pause after refusals in a row that named no wait of their own. */
const MAX_BACKOFF_MS = 30_000;
const FIRST_BACKOFF_MS = 500;
/** A refusal sets the learned rate to this share of what the endpoint answered in the last second. */
const MARGIN = 0.9;
/** Each element answered raises the learned rate by this much: about +5 % a second at that rate. */
const INCREASE_PER_ELEMENT = 0.05;
/** Slowest rate ever learned: an endpoint refusing everything is still asked now and then. */
const FLOOR_RPS = 0.5;

/** Elements counted in the current and the previous second of the clock. */
class PerSecond {
  #second = 0;
  #now = 0;
  #before = 0;

  add(nowMs: number, count: number): void {
    this.#roll(nowMs);
    this.#now += count;
  }

  /** The larger of this second's and the last second's counts. */
  recent(nowMs: number): number {
    this.#roll(nowMs);
    return Math.max(this.#now, this.#before);
  }

  #roll(nowMs: number) {
    const second = Math.floor(nowMs / 1000);
    if (second === this.#second) return;
    this.#before = second === this.#second + 1 ? this.#now : 0;
    this.#now = 0;
    this.#second = second;
  }
}

/**
 * How fast one endpoint may be asked: a token bucket of `maxRps` elements a second (each element of
 * a batch counts, as QuickNode and Alchemy count them), and a pause the endpoint itself asks for.
 *
 * With no configured rate, nothing waits until the endpoint refuses for rate; from then on a rate is
 * learned: at a refusal, 90 % of what the endpoint answered in the last second (what it showed it
 * takes), raised about 5 % a second while it answers, never above `maxRps`. A provider's cap then
 * costs a refusal now and then, not a stream of them. A refusal pauses every request to the
 * endpoint for what the provider asked (`Retry-After`, `backoff_seconds`), plus jitter so that
 * waiting callers do not all return in the same instant, or else for an exponential backoff from
 * 0.5 s to 30 s. Time comes from Effect's Clock, so tests drive it with TestClock.
 */
export class RateBudget {
  #configured: number | undefined;
  #learned: number | undefined;
  // Full at first use: a first second's worth goes at once.
  #tokens = Number.POSITIVE_INFINITY;
  #refilledAt = 0;
  #pausedUntil = 0;
  #refusalsInARow = 0;
  readonly #answered = new PerSecond();

  constructor(maxRps: number | undefined) {
    this.#configured = maxRps;
  }

  /** The rate in force now (elements per second), or undefined when unlimited. */
  get rate(): number | undefined {
    if (this.#configured === undefined) return this.#learned;
    return this.#learned === undefined ? this.#configured : Math.min(this.#configured, this.#learned);
  }

  get pausedUntil(): number {
    return this.#pausedUntil;
  }

  /** Waits until `cost` elements may be sent, then takes them from the bucket. */
  readonly take = (cost: number): Effect.Effect<void> =>
    Effect.gen(this, function* () {
      for (;;) {
        const now = yield* Clock.currentTimeMillis;
        if (now < this.#pausedUntil) {
          yield* Effect.sleep(this.#pausedUntil - now);
          continue;
        }
        const rate = this.rate;
        if (rate === undefined) return;
        const burst = Math.max(1, rate);
        this.#tokens = Math.min(burst, this.#tokens + ((now - this.#refilledAt) / 1000) * rate);
        this.#refilledAt = now;
        // A batch larger than a second's worth goes once the bucket is full, into debt.
        const need = Math.min(cost, burst);
        if (this.#tokens >= need) {
          this.#tokens -= cost;
          return;
        }
        yield* Effect.sleep(Math.max(1, Math.ceil(((need - this.#tokens) / rate) * 1000)));
      }
    });

  /**
   * The endpoint refused for rate: pause, and learn a lower rate. Returns the pause in ms. Refusals
   * that arrive during a pause answer requests sent before it (a burst of concurrent batches): they
   * may lengthen the pause to what they ask, but count as the same refusal.
   */
  readonly refused = (retryAfterMs: number | undefined): Effect.Effect<number> =>
    Effect.gen(this, function* () {
      const now = yield* Clock.currentTimeMillis;
      if (now < this.#pausedUntil) {
        if (retryAfterMs !== undefined) this.#pausedUntil = Math.max(this.#pausedUntil, now + retryAfterMs);
        return this.#pausedUntil - now;
      }
      this.#refusalsInARow++;
      const backoff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (this.#refusalsInARow - 1));
      const spread = yield* Random.next;
      const pause =
        retryAfterMs === undefined
          ? Math.round(backoff * (0.5 + spread / 2))
          : Math.round(retryAfterMs + spread * Math.min(1_000, retryAfterMs * 0.2 + 50));
      this.#pausedUntil = now + pause;
      const taken = Math.max(1, this.#answered.recent(now)) * MARGIN;
      this.#learned = Math.max(FLOOR_RPS, Math.min(this.#learned ?? taken, taken));
      // After the pause a second's worth at the learned rate may go at once.
      this.#tokens = Math.max(1, this.#learned);
      this.#refilledAt = now + pause;
      return pause;
    });

  /** `cost` elements were answered at `now`: the refusals in a row end, and a learned rate grows back. */
  readonly answered = (cost: number, now: number): void => {
    this.#refusalsInARow = 0;
    this.#answered.add(now, cost);
    if (this.#learned === undefined) return;
    this.#learned += INCREASE_PER_ELEMENT * cost;
    // Grown past what was configured: the configured rate is the limit again.
    if (this.#configured !== undefined && this.#learned >= this.#configured) this.#learned = undefined;
  };
}
