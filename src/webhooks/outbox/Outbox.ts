import type { KV } from "@nats-io/kv";
import type { PromiseLog } from "../../lib/promiseLog.js";
import type { OutboxFigures } from "../../metrics/Metrics.js";
import { leaderReads } from "../../nats/leaderReads.js";
import { isRevisionConflict } from "../../nats/revisionConflict.js";
import { makeFirstSends } from "../delivery/firstSends.js";
import { type AttemptEnd, afterAttempt, nextCounters } from "./attemptOutcome.js";
import type { OwnedPartitions } from "./OwnedPartitions.js";
import { deliveryReport, type ListKeys, redeliverDead } from "./operatorReads.js";
import { deliveryKey, statsKey, webhookDeliveriesFilter } from "./outboxBucketKeys.js";
import { kvOutboxWrites, type OutboxWrites } from "./outboxWrites.js";
import { type PartitionIndex, UNSTORED } from "./PartitionIndex.js";
import { STATS_FLUSH_MS } from "./PendingStats.js";
import {
  type AttemptRecord,
  type DeliveryCounters,
  type QueuedDelivery,
  RECENT_ATTEMPTS,
} from "./QueuedDelivery.js";
import { encodeValue, type OwedDelivery, type StoredDelivery, storedValue } from "./StoredDelivery.js";
import { makeStatsStore } from "./statsStore.js";

export type { AttemptEnd } from "./attemptOutcome.js";
export type { ListKeys } from "./operatorReads.js";

/**
 * The webhook delivery outbox, replicated in the `webhook_outbox` KV bucket
 * (layout: src/webhooks/outbox/outboxBucketKeys.ts). The notifier of any API
 * process queues into it; the process owning a webhook's partition sends its
 * deliveries and records each attempt with a write that names the revision it
 * read, so a process that lost the partition cannot overwrite its new owner.
 */
export interface OutboxOptions {
  readonly kv: KV;
  readonly listKeys: ListKeys;
  readonly owned: OwnedPartitions;
  readonly now?: () => number;
  /** Told how each attempt ended once it is recorded (delivery metrics). */
  readonly onRecorded?: (outcome: AttemptEnd["kind"]) => void;
  /** How long a webhook's stats changes are held to be written together (PendingStats.ts). */
  readonly statsFlushMs?: number;
  /** The bucket's frequent writes: delivery keys (the notifier's creates, the records of attempts) and stats. */
  readonly writes?: OutboxWrites;
  /** Waits `ms` (the notifier's wait for first attempts). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Where the outbox says what an operator should know (the service's logger). */
  readonly log?: PromiseLog;
}

/**
 * The outbox over `options.kv`. Long as the set of short operations that share the partitions
 * this process owns, its pending writes' echoes and the stats store; the stats, the operator
 * reads and an attempt's arithmetic live in their own files.
 */
export const makeOutbox = (options: OutboxOptions) => {
  const { kv, listKeys, owned, onRecorded } = options;
  const now = options.now ?? Date.now;
  const statsFlushMs = options.statsFlushMs ?? STATS_FLUSH_MS;
  const writes = options.writes ?? kvOutboxWrites(kv);
  const sleep =
    options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref()));
  const log = options.log;
  const stats = makeStatsStore(kv, writes, statsFlushMs);
  /** Reads answered by the stream's leader, which holds every acknowledged write (leaderReads.ts). */
  const leader = leaderReads(kv);
  /**
   * After a write refused for naming the wrong revision: takes the stored value of `key` into
   * `index` as the stream's leader answers it, even below the revision held there (which the refusal
   * shows the key does not have), so the next write names the current one.
   */
  const refreshDelivery = async (index: PartitionIndex, key: string) => {
    // From the leader: a lagging replica could answer the same stale revision again.
    const entry = await leader.get(key);
    if (entry === null) return;
    const held = index.get(key)?.revision;
    if (held !== undefined && held > entry.revision)
      log?.warning(
        `webhook outbox: ${key} was held at revision ${held}, which its stream's leader does not have (it holds ${entry.revision}); taking the leader's`,
      );
    index.adopt(key, entry.revision, storedValue(entry.operation, entry.value));
  };

  /**
   * Creates a delivery's key. One already there (a replayed chain event, or
   * a delivery stored meanwhile) is kept as it is, and read into the index of
   * this process's partition if it holds one, so it names its revision.
   */
  const createDelivery = async (webhookId: string, key: string, value: StoredDelivery) => {
    const bytes = encodeValue(value);
    // Its echo may reach this process's index (when it owns the partition) before the write's answer.
    const index = owned.heldIndexOf(webhookId);
    index?.writing(key, bytes, value);
    try {
      const revision = await writes.create(key, bytes);
      index?.settled(key);
      owned.written(webhookId, key, revision, value);
    } catch (error) {
      index?.settled(key);
      if (!isRevisionConflict(error)) throw error;
      if (index !== undefined) await refreshDelivery(index, key);
    }
  };

  /** Queues deliveries, all writes in flight at once; keys already there (a replay) are kept as they are. */
  const enqueue = async (
    deliveries: ReadonlyArray<QueuedDelivery>,
    state: OwedDelivery["state"] = "queued",
  ) => {
    await Promise.all(
      deliveries.map((d) =>
        createDelivery(d.webhook_id, deliveryKey(d.webhook_id, d.order), { ...d, state }),
      ),
    );
  };

  /** Deliveries attempted before they are stored, and the rule that keeps slow receivers off that path. */
  const firstSends = makeFirstSends({ owned, createDelivery, enqueue, now, sleep });

  /** The webhook's next delivery to send, if this process owns its partition. */
  const head = async (webhookId: string): Promise<QueuedDelivery | undefined> => {
    const { state: _state, ...delivery } = owned.indexOf(webhookId)?.head(webhookId)?.value ?? { state: "" };
    return "id" in delivery ? (delivery as QueuedDelivery) : undefined;
  };

  /**
   * Records an attempt and its consequence: the delivery becomes a done marker
   * (delivered), is rescheduled (retry), dead-lettered, or left queued for a
   * reactivation (gone). The write names the revision this owner holds.
   * Counters and the recent attempts follow in the webhook's next stats write
   * (PendingStats.ts), off the delivery's path.
   */
  const recordAttempt = async (delivery: QueuedDelivery, attempt: AttemptRecord, outcome: AttemptEnd) => {
    const id = delivery.webhook_id;
    const index = owned.fencedIndexOf(id);
    const key = deliveryKey(id, delivery.order);
    // The notifier's wait for it ran out while it was sent: the record goes over what that stores.
    await firstSends.storing(key);
    const held = index.get(key);
    if (held === undefined) throw new Error(`delivery ${delivery.id} is no longer in the outbox`);
    const value = afterAttempt(delivery, attempt, outcome, now());
    if (held.revision === UNSTORED) await firstSends.recordUnstored(index, key, value);
    else {
      const bytes = encodeValue(value);
      index.writing(key, bytes, value);
      try {
        index.apply(key, await writes.update(key, bytes, held.revision), value);
      } catch (error) {
        // The key moved on without the partition's watch telling this index (a watch stalled by a lost
        // node, or a write whose answer timed out but was stored): the retry would name the same stale
        // revision and fail the same way for ever. Read the key, so it names the current one, or finds
        // the delivery recorded already.
        if (isRevisionConflict(error)) await refreshDelivery(index, key);
        throw error;
      } finally {
        index.settled(key);
      }
    }
    firstSends.answered(id, attempt.latency_ms, outcome.kind === "delivered");
    stats.add(id, (before) => ({
      counters: nextCounters(before.counters, delivery, attempt, outcome),
      recent: [...before.recent, attempt].slice(-RECENT_ATTEMPTS),
    }));
    onRecorded?.(outcome.kind);
  };

  /** Drops the webhook's deliveries, counters and attempts (it was deleted). Any process may; purges are idempotent. */
  const forget = async (webhookId: string) => {
    stats.forget(webhookId);
    firstSends.forget(webhookId);
    const keys = await listKeys(webhookDeliveriesFilter(webhookId));
    await Promise.all([...keys, statsKey(webhookId)].map((key) => kv.purge(key)));
  };

  const counters = async (webhookId: string): Promise<DeliveryCounters> =>
    (await stats.read(webhookId)).counters;

  /** Queued, retrying and dead-lettered deliveries of the partitions this process owns. */
  const figures = async (): Promise<OutboxFigures> => owned.figures();

  return {
    enqueue,
    queueEvent: firstSends.queueEvent,
    markDelivered: firstSends.markDelivered,
    head,
    recordAttempt,
    redeliver: (webhookId: string) => redeliverDead(kv, listKeys, webhookId),
    report: (webhookId: string) => deliveryReport(kv, listKeys, stats, webhookId),
    forget,
    counters,
    figures,
    /** Writes every webhook's stats changes still held (at shutdown). */
    flushStats: () => stats.flushAll(),
    /** The partitions this process owns, which decide what it sends. */
    partitions: owned,
  } as const;
};

export type Outbox = ReturnType<typeof makeOutbox>;
