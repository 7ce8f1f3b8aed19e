/** How long the notifier hands out nothing but blocks it cannot plan before it lets the shared consumer go, ms. */
export const IDLE_PAUSE_MS = 10_000;

/**
 * Tells when the notifier has had nothing to plan for `pauseAfterMs`: every message since was
 * acknowledged unread (nothing watched and no block recorded for its chain). A deployment without
 * webhooks then stops taking each block from the shared consumer, a round trip per block for the
 * process and the NATS server that changes nothing.
 */
export class IdleWatch {
  #since: number | undefined;

  constructor(
    private readonly now: () => number,
    private readonly pauseAfterMs: number = IDLE_PAUSE_MS,
  ) {}

  /** A message was planned (or read to be planned): the idle time starts again. */
  busy(): void {
    this.#since = undefined;
  }

  /** A message was acknowledged unread: whether that has been so for at least `pauseAfterMs`. */
  unread(): boolean {
    const now = this.now();
    this.#since ??= now;
    return now - this.#since >= this.pauseAfterMs;
  }
}
