import type { ConsumerStart } from "./notifierConsumer.js";

/**
 * Where a notifier stands in CHAIN_EVENTS across the runs of its consuming loop: the next message
 * to plan, or, paused (the shared consumer let go for want of anything to plan), since when, and
 * the time a consumer it makes on resuming starts from.
 */
export class NotifierCursor {
  /** The first stream sequence this notifier has not seen planned. */
  nextSeq: number | undefined;
  /** Since when this notifier has let the consumer go, waiting for something to plan. */
  pausedAt: number | undefined;
  /** Resuming after a pause: the time from which a consumer it creates starts. */
  resumeAt: number | undefined;
  /** The creation time of the consumer this notifier consumed from last. */
  consumedCreated: string | undefined;

  /** Where a consumer this notifier creates starts (openNotifierConsumer). */
  start(): ConsumerStart {
    if (this.nextSeq !== undefined) return { seq: this.nextSeq };
    return this.resumeAt !== undefined ? { time: this.resumeAt } : undefined;
  }

  /** Paused since `at`: the consumer was let go, and the next one starts from a time. */
  pause(at: number): void {
    this.pausedAt = at;
    this.nextSeq = undefined;
    this.resumeAt = undefined;
  }

  /**
   * Resuming at `now`: from `lookbackMs` before it, so a block published right after a webhook was
   * made is planned; not before the pause, as the consumer let go had handed out every block.
   */
  resume(now: number, lookbackMs: number): void {
    this.resumeAt = Math.max(this.pausedAt ?? now, now - lookbackMs);
    this.pausedAt = undefined;
  }
}
