/**
 * How long a webhook's `deliver` run waits for another delivery once its queue
 * is empty before it ends, ms. Blocks come every few seconds or faster on most
 * chains; a run that ends and starts again per delivery paid two machine
 * transitions and an invoked actor's set-up each time.
 */
export const LINGER_MS = 5_000;

/**
 * Per webhook, the `deliver` run waiting for its next delivery (its queue was
 * empty), and the way to wake it: the supervisor rings it when a delivery is
 * queued, instead of sending the actor an event. At most one run per webhook
 * waits; a run stopped with its actor (abort) stops waiting at once, so a ring
 * never lands on a run that is gone.
 */
export class QueueDoorbell {
  readonly #waiting = new Map<string, (queued: boolean) => void>();

  /**
   * Waits for ring(webhookId) for up to `ms`: true when rung, false when the
   * time ran out or `signal` aborted (the run was stopped).
   */
  wait(webhookId: string, ms: number, signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (queued: boolean) => {
        if (this.#waiting.get(webhookId) === done) this.#waiting.delete(webhookId);
        clearTimeout(timer);
        signal.removeEventListener("abort", stopped);
        resolve(queued);
      };
      const stopped = () => done(false);
      const timer = setTimeout(stopped, ms);
      // A wait alone does not keep a process alive (one stopping has stopped its actors anyway).
      timer.unref?.();
      // A run replacing another (cannot happen while runs end before the next starts) wakes the older one.
      this.#waiting.get(webhookId)?.(true);
      this.#waiting.set(webhookId, done);
      signal.addEventListener("abort", stopped, { once: true });
    });
  }

  /** Wakes the webhook's waiting run: true when one was waiting (it reads the queue next). */
  ring(webhookId: string): boolean {
    const waiting = this.#waiting.get(webhookId);
    if (waiting === undefined) return false;
    waiting(true);
    return true;
  }

  /** Runs waiting now. */
  get size(): number {
    return this.#waiting.size;
  }
}
