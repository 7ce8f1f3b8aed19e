import type { OutboxFigures } from "../../metrics/Metrics.js";
import { parseDeliveryKey } from "./outboxBucketKeys.js";
import type { OwedDelivery, StoredDelivery } from "./StoredDelivery.js";

/** A stored delivery and the KV revision it was read or written at (the next write must name it). */
export interface IndexedDelivery {
  readonly key: string;
  readonly revision: number;
  readonly value: StoredDelivery;
}

/**
 * What the owner of a partition knows of its deliveries: every key of the
 * partition with its latest value and revision, per webhook in send order.
 * Fed by the partition's KV watch and by the owner's own writes; a change
 * carrying an older revision than the one held is ignored, so the two may
 * arrive in any order.
 */
export class PartitionIndex {
  /** webhook id -> order -> entry. */
  readonly #byWebhook = new Map<string, Map<string, IndexedDelivery>>();
  /** Revisions of deleted keys, so a late echo of an older write cannot bring one back. */
  readonly #deletedAt = new Map<string, number>();

  /**
   * Applies a change of `key` at `revision` (`undefined` value: deleted).
   * Answers whether it made a delivery newly sendable (a new queued one, or a
   * dead letter queued again), which the webhook's actor must be told.
   */
  apply(key: string, revision: number, value: StoredDelivery | undefined): boolean {
    const parsed = parseDeliveryKey(key);
    if (parsed === undefined) return false;
    const queue = this.#byWebhook.get(parsed.webhookId);
    const held = queue?.get(parsed.order);
    const heldRevision = held?.revision ?? this.#deletedAt.get(key) ?? 0;
    if (revision <= heldRevision) return false;
    if (value === undefined) {
      queue?.delete(parsed.order);
      if (queue?.size === 0) this.#byWebhook.delete(parsed.webhookId);
      this.#deletedAt.set(key, revision);
      return false;
    }
    this.#deletedAt.delete(key);
    const entries = queue ?? new Map<string, IndexedDelivery>();
    if (queue === undefined) this.#byWebhook.set(parsed.webhookId, entries);
    entries.set(parsed.order, { key, revision, value });
    return value.state === "queued" && held?.value.state !== "queued";
  }

  /** Forgets a key removed from the bucket without a change the watch reports (a purged done marker). */
  drop(key: string): void {
    const parsed = parseDeliveryKey(key);
    if (parsed === undefined) return;
    const queue = this.#byWebhook.get(parsed.webhookId);
    queue?.delete(parsed.order);
    if (queue?.size === 0) this.#byWebhook.delete(parsed.webhookId);
  }

  /** The entry of `key`, if held. */
  get(key: string): IndexedDelivery | undefined {
    const parsed = parseDeliveryKey(key);
    return parsed === undefined ? undefined : this.#byWebhook.get(parsed.webhookId)?.get(parsed.order);
  }

  /** The webhook's first queued delivery in send order (the one to send next). */
  head(webhookId: string): (IndexedDelivery & { readonly value: OwedDelivery }) | undefined {
    let best: IndexedDelivery | undefined;
    for (const [order, entry] of this.#byWebhook.get(webhookId) ?? [])
      if (entry.value.state === "queued" && (best === undefined || order < best.value.order)) best = entry;
    return best as (IndexedDelivery & { readonly value: OwedDelivery }) | undefined;
  }

  /** Webhooks with a queued delivery. */
  webhooksWithQueued(): ReadonlyArray<string> {
    return [...this.#byWebhook]
      .filter(([, entries]) => [...entries.values()].some((e) => e.value.state === "queued"))
      .map(([id]) => id);
  }

  /** Done markers written before `before` (ms), for the sweep. */
  doneBefore(before: number): ReadonlyArray<IndexedDelivery> {
    const out: Array<IndexedDelivery> = [];
    for (const entries of this.#byWebhook.values())
      for (const entry of entries.values())
        if (entry.value.state === "done" && entry.value.done_at < before) out.push(entry);
    return out;
  }

  /** Queued, retrying (the head failed before) and dead-lettered deliveries, for the metrics. */
  figures(): OutboxFigures {
    let queued = 0;
    let retrying = 0;
    let dead = 0;
    for (const [id, entries] of this.#byWebhook) {
      for (const entry of entries.values()) {
        if (entry.value.state === "queued") queued++;
        else if (entry.value.state === "dead") dead++;
      }
      const head = this.head(id);
      if (head !== undefined && head.value.attempts > 0 && head.value.next_attempt_at > 0) retrying++;
    }
    return { queued, retrying, dead };
  }
}
