import type { DeliveryStats } from "./StoredDelivery.js";

/** One attempt's effect on its webhook's counters and recent attempts. */
export type StatsChange = (stats: DeliveryStats) => DeliveryStats;

/**
 * How long a webhook's stats changes are held before they are written together.
 * Stats are operator figures, not owed deliveries: a process that dies loses at
 * most this long of them (plus a write in flight), never a delivery. A second
 * bounds a busy webhook at one stats write a second; at a quarter of one,
 * 1,000 webhooks sent ten deliveries each in five seconds wrote stats about
 * once per delivery, a third of the bucket's writes.
 */
export const STATS_FLUSH_MS = 1_000;

/** Changes held for one webhook beyond which they are written at once. */
const FLUSH_AT_CHANGES = 64;

/**
 * The stats changes of recorded attempts not yet written, per webhook. A
 * webhook's changes are written as one revision-checked write (`write`) every
 * `flushMs` or every FLUSH_AT_CHANGES changes, one write at a time per webhook
 * and in the order the attempts were recorded, so a reader never sees a later
 * attempt counted without an earlier one. This takes the stats write off each
 * delivery's path and makes it one per webhook per interval instead of one per
 * delivery. A failed write keeps its changes for the next interval.
 */
export class PendingStats {
  readonly #held = new Map<string, Array<StatsChange>>();
  /** Per webhook, the write in flight (and those chained after it). */
  readonly #writing = new Map<string, Promise<void>>();
  /** Webhooks deleted here: changes of a failed write are not held again. */
  readonly #forgotten = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly write: (webhookId: string, change: StatsChange) => Promise<void>,
    private readonly flushMs: number = STATS_FLUSH_MS,
  ) {}

  /** Holds one attempt's change; written within flushMs. */
  add(webhookId: string, change: StatsChange): void {
    const held = this.#held.get(webhookId) ?? [];
    held.push(change);
    this.#held.set(webhookId, held);
    if (held.length >= FLUSH_AT_CHANGES) void this.flush(webhookId);
    else this.#schedule();
  }

  /** Writes the webhook's held changes; resolves once they are written (or the write failed and they are held again). */
  flush(webhookId: string): Promise<void> {
    const before = this.#writing.get(webhookId) ?? Promise.resolve();
    const next = before.then(() => this.#writeHeld(webhookId));
    this.#writing.set(webhookId, next);
    void next.then(() => {
      if (this.#writing.get(webhookId) === next) this.#writing.delete(webhookId);
    });
    return next;
  }

  /** Writes every webhook's held changes. */
  async flushAll(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await Promise.all([...this.#held.keys()].map((id) => this.flush(id)));
  }

  /** Drops the webhook's held changes (it was deleted). */
  forget(webhookId: string): void {
    this.#forgotten.add(webhookId);
    this.#held.delete(webhookId);
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flushAll();
    }, this.flushMs);
    this.#timer.unref?.();
  }

  async #writeHeld(webhookId: string): Promise<void> {
    const changes = this.#held.get(webhookId);
    if (changes === undefined || changes.length === 0) return;
    this.#held.delete(webhookId);
    try {
      await this.write(webhookId, (stats) => changes.reduce((acc, change) => change(acc), stats));
    } catch {
      // The bucket unreachable or the stats moved on twice: keep the changes, in order, for the next interval.
      if (this.#forgotten.has(webhookId)) return;
      this.#held.set(webhookId, [...changes, ...(this.#held.get(webhookId) ?? [])]);
      this.#schedule();
    }
  }
}
