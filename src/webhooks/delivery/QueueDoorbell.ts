/**
 * How long a webhook's `deliver` run waits for another delivery once its queue
 * is empty before it ends, ms. Blocks come every few seconds or faster on most
 * chains; a run that ends and starts again per delivery paid two machine
 * transitions and an invoked actor's set-up each time.
 */
export const LINGER_MS = 5_000;

/** A `deliver` run waiting at the doorbell. */
class Waiter {
  constructor(
    readonly webhookId: string,
    readonly signal: AbortSignal,
    /** When it gives up unrung (performance.now() time). */
    readonly until: number,
    readonly resolve: (queued: boolean) => void,
    readonly stopped: (waiter: Waiter) => void,
  ) {}

  /** Its run was stopped (`signal` aborted): listened to as an object, so a wait creates no closure. */
  handleEvent(): void {
    this.stopped(this);
  }
}

/**
 * Per webhook, the `deliver` run waiting for its next delivery (its queue was
 * empty), and the way to wake it: the supervisor rings it when a delivery is
 * queued, instead of sending the actor an event. At most one run per webhook
 * waits; a run stopped with its actor (abort) stops waiting at once, so a ring
 * never lands on a run that is gone. Every webhook's run waits after each
 * delivery it sends, so a wait is kept cheap: one timer for the whole
 * doorbell, set for the earliest give-up time, rather than one per wait.
 */
export class QueueDoorbell {
  readonly #waiting = new Map<string, Waiter>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the timer fires; Infinity while none is set. */
  #timerAt = Number.POSITIVE_INFINITY;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /**
   * Waits for ring(webhookId) for up to `ms`: true when rung, false when the
   * time ran out or `signal` aborted (the run was stopped).
   */
  wait(webhookId: string, ms: number, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      // A run replacing another (cannot happen while runs end before the next starts) wakes the older one.
      const older = this.#waiting.get(webhookId);
      if (older !== undefined) this.#end(older, true);
      const waiter = new Waiter(webhookId, signal, this.now() + ms, resolve, this.#stopped);
      this.#waiting.set(webhookId, waiter);
      signal.addEventListener("abort", waiter, { once: true });
      if (waiter.until < this.#timerAt) this.#setTimer(waiter.until);
    });
  }

  /** Wakes the webhook's waiting run: true when one was waiting (it reads the queue next). */
  ring(webhookId: string): boolean {
    const waiter = this.#waiting.get(webhookId);
    if (waiter === undefined) return false;
    this.#end(waiter, true);
    return true;
  }

  /** Runs waiting now. */
  get size(): number {
    return this.#waiting.size;
  }

  readonly #stopped = (waiter: Waiter) => this.#end(waiter, false);

  #end(waiter: Waiter, queued: boolean): void {
    if (this.#waiting.get(waiter.webhookId) === waiter) this.#waiting.delete(waiter.webhookId);
    waiter.signal.removeEventListener("abort", waiter);
    waiter.resolve(queued);
  }

  #setTimer(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(this.#giveUp, Math.max(0, at - this.now()));
    // A wait alone does not keep a process alive (one stopping has stopped its actors anyway).
    this.#timer.unref?.();
  }

  /** Ends the waits whose time ran out, and sets the timer for the next one (runs rung since are gone from the map). */
  readonly #giveUp = () => {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const at = this.now();
    let next = Number.POSITIVE_INFINITY;
    for (const waiter of [...this.#waiting.values()]) {
      if (waiter.until <= at) this.#end(waiter, false);
      else next = Math.min(next, waiter.until);
    }
    if (next < Number.POSITIVE_INFINITY) this.#setTimer(next);
  };
}
