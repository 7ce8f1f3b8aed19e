import type { OutboxFigures } from "../../metrics/Metrics.js";
import { PARTITIONS, partitionOf } from "./outboxBucketKeys.js";
import type { PartitionIndex } from "./PartitionIndex.js";
import type { OwedDelivery, StoredDelivery } from "./StoredDelivery.js";

/** This process does not own the webhook's partition (any more): it must not send or record. */
export class NotPartitionOwner extends Error {
  constructor(readonly webhookId: string) {
    super(`this process does not own the outbox partition of webhook ${webhookId}`);
  }
}

/** A partition while this process owns it. */
export interface OwnedPartition {
  readonly index: PartitionIndex;
  /** Whether the lease is still certainly ours (renewed recently enough); checked before every send and write. */
  readonly fenced: () => boolean;
  /** Tells a webhook's actor it has a delivery to send. */
  readonly wake?: (webhookId: string) => void;
}

/**
 * The partitions this process owns right now, with their indexes, and the
 * attempts in flight in each (a partition handed back waits for them, so its
 * next owner does not send what this one is sending).
 */
export class OwnedPartitions {
  readonly #owned = new Map<number, OwnedPartition>();
  readonly #draining = new Set<number>();
  readonly #inFlight = new Map<number, number>();

  add(partition: number, owned: OwnedPartition): void {
    this.#draining.delete(partition);
    this.#owned.set(partition, owned);
  }

  /** No new attempt starts in the partition; answers how many are still in flight. */
  drain(partition: number): number {
    this.#draining.add(partition);
    return this.#inFlight.get(partition) ?? 0;
  }

  remove(partition: number): void {
    this.#owned.delete(partition);
    this.#draining.delete(partition);
  }

  get size(): number {
    return this.#owned.size;
  }

  owns(partition: number): boolean {
    return this.#owned.has(partition);
  }

  /** The index of the webhook's partition when this process owns it, lease fresh and not handing it back. */
  indexOf(webhookId: string): PartitionIndex | undefined {
    const partition = partitionOf(webhookId);
    const owned = this.#owned.get(partition);
    return owned !== undefined && !this.#draining.has(partition) && owned.fenced() ? owned.index : undefined;
  }

  /** Like indexOf, for a write that must not happen otherwise. */
  fencedIndexOf(webhookId: string): PartitionIndex {
    const owned = this.#owned.get(partitionOf(webhookId));
    if (owned === undefined || !owned.fenced()) throw new NotPartitionOwner(webhookId);
    return owned.index;
  }

  /** The index of the webhook's partition while this process holds it, fenced or not (to follow its own writes). */
  heldIndexOf(webhookId: string): PartitionIndex | undefined {
    return this.#owned.get(partitionOf(webhookId))?.index;
  }

  /**
   * Applies a delivery this process just wrote (the notifier's create) to the
   * index of its partition when this process owns it, waking the webhook's
   * actor if it became sendable: the write's echo from the watch is then
   * known and skipped, and the actor need not wait for it.
   */
  written(webhookId: string, key: string, revision: number, value: StoredDelivery): void {
    const owned = this.#owned.get(partitionOf(webhookId));
    if (owned === undefined) return;
    if (owned.index.apply(key, revision, value)) owned.wake?.(webhookId);
  }

  /**
   * Hands a delivery not yet stored to the index of its partition, which this
   * process must own (fenced, not handing it back), and wakes the webhook's
   * actor to send it. False when it could not be held there.
   */
  holdUnstored(webhookId: string, key: string, value: OwedDelivery): boolean {
    const index = this.indexOf(webhookId);
    if (index === undefined || !index.holdUnstored(key, value)) return false;
    this.#owned.get(partitionOf(webhookId))?.wake?.(webhookId);
    return true;
  }

  /** Runs one attempt as part of the webhook's partition, refused unless this process may send it. */
  async attempt<A>(webhookId: string, run: () => Promise<A>): Promise<A> {
    if (this.indexOf(webhookId) === undefined) throw new NotPartitionOwner(webhookId);
    const partition = partitionOf(webhookId);
    this.#inFlight.set(partition, (this.#inFlight.get(partition) ?? 0) + 1);
    try {
      return await run();
    } finally {
      this.#inFlight.set(partition, (this.#inFlight.get(partition) ?? 1) - 1);
    }
  }

  figures(): OutboxFigures {
    const total = { queued: 0, retrying: 0, dead: 0 };
    for (const { index } of this.#owned.values()) {
      const f = index.figures();
      total.queued += f.queued;
      total.retrying += f.retrying;
      total.dead += f.dead;
    }
    return total;
  }
}

/** Every partition number. */
export const ALL_PARTITIONS: ReadonlyArray<number> = Array.from({ length: PARTITIONS }, (_, i) => i);
