import { Clock, Effect, Random } from "effect";

/** Longest pause after refusals in a row that named no wait of their own. */
const MAX_BACKOFF_MS = 30_000;
const FIRST_BACKOFF_MS = 500;
/** A refusal sets the learned rate to this share of the rate the endpoint was answering at. */
const MARGIN = 0.9;
/** Without a measured rate, a refusal cuts the rate in force (or what was sent) to this share. */
const DECREASE = 0.7;
/** Each element answered raises the learned rate by this much: about +5 % a second at that rate. */
const INCREASE_PER_ELEMENT = 0.05;
/** Slowest rate ever learned: an endpoint refusing everything is still asked now and then. */
const FLOOR_RPS = 0.5;
/** How far back answers are counted to measure the rate an endpoint answers at. */
const MEASURE_MS = 2_000;
/** Shortest stretch, and fewest answers, a rate is measured from. */
const MIN_MEASURE_MS = 250;
const MIN_MEASURE_COUNT = 5;
const SLOT_MS = 100;

/** Counts in 100 ms slots over the last two seconds. */
class RecentCounts {
  readonly #slots = new Array<number>(MEASURE_MS / SLOT_MS).fill(0);
  #slot = 0;

  #at(slot: number): number {
    const n = this.#slots.length;
    return ((slot % n) + n) % n;
  }

  add(nowMs: number, count: number): void {
    this.#roll(nowMs);
    this.#slots[this.#at(this.#slot)]! += count;
  }

  /** The count since `fromMs` (at most two seconds back, to the slot). */
  since(nowMs: number, fromMs: number): number {
    this.#roll(nowMs);
    const first = Math.max(this.#slot - this.#slots.length + 1, Math.floor(fromMs / SLOT_MS));
    let total = 0;
    for (let slot = first; slot <= this.#slot; slot++) total += this.#slots[this.#at(slot)]!;
    return total;
  }

  #roll(nowMs: number) {
    const slot = Math.floor(nowMs / SLOT_MS);
    if (slot <= this.#slot) return;
    for (let s = Math.max(this.#slot + 1, slot - this.#slots.length + 1); s <= slot; s++)
      this.#slots[this.#at(s)] = 0;
    this.#slot = slot;
  }
}

/** Elements sent in the last second, by the millisecond they went (a provider counts each second). */
class LastSecond {
  readonly #sends: Array<{ readonly at: number; readonly count: number }> = [];
  #start = 0;
  #total = 0;

  /** Elements sent after `now - 1000`; forgets older sends. */
  total(now: number): number {
    while (this.#start < this.#sends.length && this.#sends[this.#start]!.at <= now - 1000) {
      this.#total -= this.#sends[this.#start]!.count;
      this.#start++;
    }
    if (this.#start > 64 && this.#start * 2 > this.#sends.length) {
      this.#sends.splice(0, this.#start);
      this.#start = 0;
    }
    return this.#total;
  }

  /** How long from `now` until `room` more elements fit under `most`. */
  waitFor(now: number, room: number, most: number): number {
    let total = this.total(now);
    for (let i = this.#start; i < this.#sends.length && total + room > most; i++) {
      total -= this.#sends[i]!.count;
      if (total + room <= most) return this.#sends[i]!.at + 1000 - now + 1;
    }
    return 1;
  }

  add(now: number, count: number): void {
    this.#sends.push({ at: now, count });
    this.#total += count;
  }
}

/**
 * How fast one endpoint may be asked: a token bucket of `maxRps` elements a second (each element of
 * a batch counts, as QuickNode and Alchemy count them), and a pause the endpoint itself asks for.
 *
 * With no configured rate, nothing waits until the endpoint refuses for rate; from then on a rate is
 * learned: at a refusal, 70 % of the rate in force, but not under 90 % of the rate it was answering
 * at (measured over the last two seconds since the last pause: what it showed it takes); raised
 * about 5 % a second while it answers, never above `maxRps`. A provider's cap then costs a refusal now and
 * then, not a stream of them. A refusal pauses every request to the
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
  readonly #answered = new RecentCounts();
  readonly #sent = new RecentCounts();
  readonly #lastSecond = new LastSecond();
  /** Since when answers measure the endpoint's rate: the end of the last pause, or the first use. */
  #measuredFrom: number | undefined;

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

  /**
   * Takes `cost` elements from the bucket if they may be sent at `now`, and answers 0; otherwise
   * takes nothing and answers how long to wait before asking again.
   */
  tryTake(cost: number, now: number): number {
    if (now < this.#pausedUntil) return this.#pausedUntil - now;
    this.#measuredFrom ??= now;
    const rate = this.rate;
    if (rate === undefined) {
      this.#sent.add(now, cost);
      return 0;
    }
    const burst = Math.max(1, rate);
    this.#tokens = Math.min(burst, this.#tokens + ((now - this.#refilledAt) / 1000) * rate);
    this.#refilledAt = now;
    // A batch larger than a second's worth goes once the bucket is full, into debt.
    const need = Math.min(cost, burst);
    // Providers count elements in each second, not a bucket's average: a full bucket and its refill
    // within one second would be twice the rate. What was sent in the last second must leave room
    // for this call (a batch over a second's worth goes alone, as above).
    const lastSecond = this.#lastSecond.total(now);
    const fits = lastSecond === 0 || lastSecond + cost <= burst;
    if (this.#tokens >= need && fits) {
      this.#tokens -= cost;
      this.#sent.add(now, cost);
      this.#lastSecond.add(now, cost);
      return 0;
    }
    const refill = this.#tokens >= need ? 0 : Math.ceil(((need - this.#tokens) / rate) * 1000);
    const window = fits ? 0 : this.#lastSecond.waitFor(now, Math.min(cost, burst), burst);
    return Math.max(1, refill, window);
  }

  /**
   * Whether this process is at the endpoint's rate now: one more element would have to wait. Calls
   * waiting for the budget hold the endpoint's connections meanwhile (RpcEndpoint), so a wait for
   * a connection then says nothing of the node either.
   */
  atRate(now: number): boolean {
    const rate = this.rate;
    if (rate === undefined || now < this.#pausedUntil) return rate !== undefined;
    const tokens = Math.min(Math.max(1, rate), this.#tokens + ((now - this.#refilledAt) / 1000) * rate);
    return tokens < 1 || this.#lastSecond.total(now) + 1 > Math.max(1, rate);
  }

  /** Waits until `cost` elements may be sent, then takes them from the bucket. */
  readonly take = (cost: number): Effect.Effect<void> =>
    Effect.gen(this, function* () {
      for (;;) {
        const wait = this.tryTake(cost, yield* Clock.currentTimeMillis);
        if (wait === 0) return;
        yield* Effect.sleep(wait);
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
      this.#learned = Math.max(
        FLOOR_RPS,
        Math.min(this.#learned ?? Number.POSITIVE_INFINITY, this.#proposal(now)),
      );
      this.#measuredFrom = now + pause;
      // After the pause a second's worth at the learned rate may go at once.
      this.#tokens = Math.max(1, this.#learned);
      this.#refilledAt = now + pause;
      return pause;
    });

  /**
   * The rate to learn at a refusal at `now`: 70 % of the rate in force (or of what was sent in the
   * last second), but never under 90 % of the rate the endpoint was answering at, when there are
   * answers enough to measure it: one refusal then costs at most 30 %, and a burst's refusals never
   * take the rate below what the endpoint showed it takes.
   */
  #proposal(now: number): number {
    const cut = (this.#learned ?? Math.max(1, this.#sent.since(now, now - 1_000))) * DECREASE;
    const from = Math.max(now - MEASURE_MS, this.#measuredFrom ?? now);
    const answered = this.#answered.since(now, from);
    const measurable = now - from >= MIN_MEASURE_MS && answered >= MIN_MEASURE_COUNT;
    return measurable ? Math.max(cut, ((answered * 1000) / (now - from)) * MARGIN) : cut;
  }

  /** `cost` elements were answered at `now`: the refusals in a row end, and a learned rate grows back. */
  readonly answered = (cost: number, now: number): void => {
    this.#refusalsInARow = 0;
    if (this.#measuredFrom === undefined || now >= this.#measuredFrom) this.#answered.add(now, cost);
    if (this.#learned === undefined) return;
    this.#learned += INCREASE_PER_ELEMENT * cost;
    // Grown past what was configured: the configured rate is the limit again.
    if (this.#configured !== undefined && this.#learned >= this.#configured) this.#learned = undefined;
  };
}
