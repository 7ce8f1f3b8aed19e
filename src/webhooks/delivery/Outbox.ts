import type { Operation } from "../../indexer/applyBlock.js";
import type { Db } from "../../storage/Level.js";
import {
  attemptKey,
  attemptPrefix,
  countersKey,
  deadKey,
  deadPrefix,
  end,
  queueKey,
  queuePrefix,
} from "./outboxKeys.js";
import {
  type AttemptRecord,
  type DeliveryCounters,
  type QueuedDelivery,
  RECENT_ATTEMPTS,
  ZERO_COUNTERS,
} from "./QueuedDelivery.js";

const firstValue = async <A>(db: Db, prefix: string, reverse = false): Promise<A | undefined> => {
  for await (const value of db.values({ gte: prefix, lt: end(prefix), limit: 1, reverse })) return value as A;
  return undefined;
};

const allValues = async <A>(db: Db, prefix: string, limit = -1, reverse = false): Promise<Array<A>> => {
  const out: Array<A> = [];
  for await (const value of db.values({ gte: prefix, lt: end(prefix), limit, reverse })) out.push(value as A);
  return out;
};

/** How one attempt ended, as the dispatcher records it. */
export type AttemptEnd =
  | { readonly kind: "delivered" }
  | { readonly kind: "retry"; readonly at: number }
  | { readonly kind: "deadLettered" }
  /** 410: the webhook is made inactive; the delivery stays queued for a reactivation. */
  | { readonly kind: "gone" };

/**
 * The webhook delivery outbox in this node's LevelDB (layout: outboxKeys.ts).
 * Only the webhook's actor writes its queue entries after the notifier created
 * them, one attempt at a time, so no two writers race on a key.
 */
export const makeOutbox = (
  db: Db,
  /** Told how each attempt ended once it is recorded (delivery metrics). */
  onRecorded?: (outcome: AttemptEnd["kind"]) => void,
) => {
  const counters = async (webhookId: string): Promise<DeliveryCounters> =>
    ((await db.get(countersKey(webhookId))) as DeliveryCounters | undefined) ?? ZERO_COUNTERS;

  /** The webhook's oldest queued delivery (the one to send next), if any. */
  const head = (webhookId: string) => firstValue<QueuedDelivery>(db, queuePrefix(webhookId));

  /**
   * Records an attempt and its consequence in one batch: the queue entry is
   * deleted (delivered), rescheduled (retry), moved to the dead letters, or
   * left for reactivation (gone); counters and the recent attempts follow.
   */
  const recordAttempt = async (delivery: QueuedDelivery, attempt: AttemptRecord, outcome: AttemptEnd) => {
    const id = delivery.webhook_id;
    const before = await counters(id);
    const ops: Array<Operation> = [];
    const after: QueuedDelivery = {
      ...delivery,
      attempts: delivery.attempts + 1,
      last_status: attempt.status,
      last_error: attempt.error,
    };
    if (outcome.kind === "delivered") ops.push({ type: "del", key: queueKey(id, delivery.seq) });
    else if (outcome.kind === "retry")
      ops.push({
        type: "put",
        key: queueKey(id, delivery.seq),
        value: { ...after, next_attempt_at: outcome.at },
      });
    else if (outcome.kind === "deadLettered") {
      ops.push({ type: "del", key: queueKey(id, delivery.seq) });
      ops.push({ type: "put", key: deadKey(id, delivery.seq), value: after });
    } else
      ops.push({ type: "put", key: queueKey(id, delivery.seq), value: { ...after, next_attempt_at: 0 } });
    const delivered = outcome.kind === "delivered";
    const next: DeliveryCounters = {
      delivered: before.delivered + (delivered ? 1 : 0),
      failed: before.failed + (delivered ? 0 : 1),
      dead_lettered: before.dead_lettered + (outcome.kind === "deadLettered" ? 1 : 0),
      events_delivered: before.events_delivered + (delivered ? delivery.events : 0),
      last_status: attempt.status,
      last_latency_ms: attempt.latency_ms,
      last_attempt_at: attempt.at,
    };
    ops.push({ type: "put", key: countersKey(id), value: next });
    const attemptSeq = Date.parse(attempt.at) * 1000 + (delivery.seq % 1000);
    ops.push({ type: "put", key: attemptKey(id, attemptSeq), value: attempt });
    const old = await allValues<AttemptRecord>(db, attemptPrefix(id));
    if (old.length >= RECENT_ATTEMPTS) {
      const keys: Array<string> = [];
      for await (const key of db.keys({
        gte: attemptPrefix(id),
        lt: end(attemptPrefix(id)),
        limit: old.length - RECENT_ATTEMPTS + 1,
      }))
        keys.push(key as string);
      for (const key of keys) ops.push({ type: "del", key });
    }
    await db.batch(ops);
    onRecorded?.(outcome.kind);
  };

  /** Moves every dead-lettered delivery of the webhook back to its queue, attempts reset. Returns how many. */
  const redeliver = async (webhookId: string): Promise<number> => {
    const dead = await allValues<QueuedDelivery>(db, deadPrefix(webhookId));
    if (dead.length === 0) return 0;
    await db.batch(
      dead.flatMap(
        (d): Array<Operation> => [
          { type: "del", key: deadKey(webhookId, d.seq) },
          {
            type: "put",
            key: queueKey(webhookId, d.seq),
            value: { ...d, attempts: 0, next_attempt_at: 0 } satisfies QueuedDelivery,
          },
        ],
      ),
    );
    return dead.length;
  };

  /** Everything operators see about one webhook on this node. */
  const report = async (webhookId: string) => {
    const queued = await allValues<QueuedDelivery>(db, queuePrefix(webhookId));
    const dead = await allValues<QueuedDelivery>(db, deadPrefix(webhookId));
    return {
      counters: await counters(webhookId),
      queued: queued.length,
      retrying: queued.filter((d) => d.attempts > 0).length,
      dead: dead.length,
      next_attempt_at: queued[0] === undefined ? null : queued[0].next_attempt_at,
      recent: await allValues<AttemptRecord>(db, attemptPrefix(webhookId), RECENT_ATTEMPTS, true),
      deadLetters: dead.slice(-RECENT_ATTEMPTS),
    };
  };

  /** Drops the webhook's queue, dead letters, counters and attempts (it was deleted). */
  const forget = async (webhookId: string) => {
    const ops: Array<Operation> = [{ type: "del", key: countersKey(webhookId) }];
    for (const prefix of [queuePrefix(webhookId), deadPrefix(webhookId), attemptPrefix(webhookId)])
      for await (const key of db.keys({ gte: prefix, lt: end(prefix) }))
        ops.push({ type: "del", key: key as string });
    await db.batch(ops);
  };

  return { head, recordAttempt, redeliver, report, forget, counters } as const;
};

export type Outbox = ReturnType<typeof makeOutbox>;
