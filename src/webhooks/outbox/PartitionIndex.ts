import { Buffer } from "node:buffer";
import type { OutboxFigures } from "../../metrics/Metrics.js";
import { parseDeliveryKey } from "./outboxBucketKeys.js";
import type { OwedDelivery, StoredDelivery } from "./StoredDelivery.js";

/**
 * The revision of a delivery held only in this process, to be attempted before
 * it is stored (src/webhooks/outbox/UnstoredDeliveries.ts); stored revisions start at 1.
 */
export const UNSTORED = 0;

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
/** Inserts `order` into the sorted `orders` (usually at the end: deliveries arrive in order). */
const insertSorted = (orders: Array<string>, order: string) => {
  let i = orders.length;
  while (i > 0 && orders[i - 1]! > order) i--;
  if (orders[i - 1] !== order) orders.splice(i, 0, order);
};

const removeSorted = (orders: Array<string>, order: string) => {
  const i = orders[0] === order ? 0 : orders.indexOf(order);
  if (i >= 0) orders.splice(i, 1);
};

export class PartitionIndex {
  /** webhook id -> order -> entry. */
  readonly #byWebhook = new Map<string, Map<string, IndexedDelivery>>();
  /** webhook id -> the orders of its queued deliveries, ascending (the head first, without a scan of done markers). */
  readonly #queued = new Map<string, Array<string>>();
  /** Revisions of deleted keys, so a late echo of an older write cannot bring one back. */
  readonly #deletedAt = new Map<string, number>();
  /** This process's writes in flight, per key: the bytes written and the value they encode. */
  readonly #writing = new Map<string, { readonly bytes: Uint8Array; readonly value: StoredDelivery }>();

  /**
   * Applies a change of `key` at `revision` (`undefined` value: deleted).
   * Answers whether it made a delivery newly sendable (a new queued one, or a
   * dead letter queued again), which the webhook's actor must be told.
   */
  apply(key: string, revision: number, value: StoredDelivery | undefined): boolean {
    const parsed = parseDeliveryKey(key);
    if (parsed === undefined) return false;
    const held = this.#byWebhook.get(parsed.webhookId)?.get(parsed.order);
    const heldRevision = held?.revision ?? this.#deletedAt.get(key) ?? 0;
    if (revision <= heldRevision) return false;
    return this.#set(key, revision, value);
  }

  /**
   * Takes `key` at `revision` as the stream's leader just answered it, even when this index holds a
   * later revision: a write refused because it named a revision the key does not have means the
   * index is wrong, and only the leader's answer lets the next write name the right one.
   */
  adopt(key: string, revision: number, value: StoredDelivery | undefined): boolean {
    return this.#set(key, revision, value);
  }

  #set(key: string, revision: number, value: StoredDelivery | undefined): boolean {
    const parsed = parseDeliveryKey(key);
    if (parsed === undefined) return false;
    const held = this.#byWebhook.get(parsed.webhookId)?.get(parsed.order);
    if (value === undefined) {
      this.#remove(parsed.webhookId, parsed.order);
      this.#deletedAt.set(key, revision);
      return false;
    }
    this.#deletedAt.delete(key);
    return this.#put(parsed.webhookId, parsed.order, { key, revision, value }, held);
  }

  /**
   * Holds a delivery that is not stored yet (revision UNSTORED), to be sent in
   * its place in the webhook's queue; answers whether it became sendable. Any
   * stored revision of the key replaces it.
   */
  holdUnstored(key: string, value: OwedDelivery): boolean {
    const parsed = parseDeliveryKey(key);
    if (parsed === undefined || this.get(key) !== undefined || this.#deletedAt.has(key)) return false;
    return this.#put(parsed.webhookId, parsed.order, { key, revision: UNSTORED, value }, undefined);
  }

  /** Forgets `key` if it is still held unstored (delivered without being stored, or given up). */
  dropUnstored(key: string): void {
    if (this.get(key)?.revision === UNSTORED) this.drop(key);
  }

  #put(webhookId: string, order: string, entry: IndexedDelivery, held: IndexedDelivery | undefined): boolean {
    let entries = this.#byWebhook.get(webhookId);
    if (entries === undefined) {
      entries = new Map<string, IndexedDelivery>();
      this.#byWebhook.set(webhookId, entries);
    }
    entries.set(order, entry);
    const wasQueued = held?.value.state === "queued";
    const isQueued = entry.value.state === "queued";
    if (isQueued && !wasQueued) {
      const orders = this.#queued.get(webhookId);
      if (orders === undefined) this.#queued.set(webhookId, [order]);
      else insertSorted(orders, order);
    } else if (wasQueued && !isQueued) this.#unqueue(webhookId, order);
    return isQueued && !wasQueued;
  }

  #unqueue(webhookId: string, order: string): void {
    const orders = this.#queued.get(webhookId);
    if (orders === undefined) return;
    removeSorted(orders, order);
    if (orders.length === 0) this.#queued.delete(webhookId);
  }

  #remove(webhookId: string, order: string): void {
    const queue = this.#byWebhook.get(webhookId);
    if (queue?.get(order)?.value.state === "queued") this.#unqueue(webhookId, order);
    queue?.delete(order);
    if (queue?.size === 0) this.#byWebhook.delete(webhookId);
  }

  /**
   * Whether a change of `key` at `revision` is already known (the echo of this
   * process's own write, or of one applied since): it can be skipped without
   * decoding its value.
   */
  knows(key: string, revision: number): boolean {
    const parsed = parseDeliveryKey(key);
    if (parsed === undefined) return true;
    const held =
      this.#byWebhook.get(parsed.webhookId)?.get(parsed.order)?.revision ?? this.#deletedAt.get(key) ?? 0;
    return revision <= held;
  }

  /**
   * This process is writing `value`, encoded as `bytes`, to `key`. The write's
   * echo may come through the watch before the write's answer (which says its
   * revision): then echoOf recognises it without decoding it.
   */
  writing(key: string, bytes: Uint8Array, value: StoredDelivery): void {
    this.#writing.set(key, { bytes, value });
  }

  /** The write to `key` got its answer (or failed): its echo, if still to come, is known by revision. */
  settled(key: string): void {
    this.#writing.delete(key);
  }

  /**
   * The value of a change of `key` carrying `bytes` when they are exactly what
   * this process is writing there (the same bytes decode to the same value,
   * whoever wrote them); undefined otherwise, to be decoded.
   */
  echoOf(key: string, bytes: Uint8Array): StoredDelivery | undefined {
    const held = this.#writing.get(key);
    return held !== undefined && Buffer.compare(held.bytes, bytes) === 0 ? held.value : undefined;
  }

  /** Forgets a key removed from the bucket without a change the watch reports (a purged done marker). */
  drop(key: string): void {
    const parsed = parseDeliveryKey(key);
    if (parsed !== undefined) this.#remove(parsed.webhookId, parsed.order);
  }

  /** The entry of `key`, if held. */
  get(key: string): IndexedDelivery | undefined {
    const parsed = parseDeliveryKey(key);
    return parsed === undefined ? undefined : this.#byWebhook.get(parsed.webhookId)?.get(parsed.order);
  }

  /** The webhook's first queued delivery in send order (the one to send next). */
  head(webhookId: string): (IndexedDelivery & { readonly value: OwedDelivery }) | undefined {
    const first = this.#queued.get(webhookId)?.[0];
    if (first === undefined) return undefined;
    return this.#byWebhook.get(webhookId)?.get(first) as
      | (IndexedDelivery & { readonly value: OwedDelivery })
      | undefined;
  }

  /** Each stored key held, with its revision (not those held unstored). */
  *storedRevisions(): Iterable<readonly [key: string, revision: number]> {
    for (const entries of this.#byWebhook.values())
      for (const entry of entries.values())
        if (entry.revision !== UNSTORED) yield [entry.key, entry.revision];
  }

  /** Webhooks with a queued delivery. */
  webhooksWithQueued(): ReadonlyArray<string> {
    return [...this.#queued.keys()];
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
