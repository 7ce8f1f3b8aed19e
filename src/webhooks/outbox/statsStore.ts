import type { KV } from "@nats-io/kv";
import { isRevisionConflict } from "../../nats/revisionConflict.js";
import { statsKey } from "./outboxBucketKeys.js";
import type { OutboxWrites } from "./outboxWrites.js";
import { PendingStats, type StatsChange } from "./PendingStats.js";
import { ZERO_COUNTERS } from "./QueuedDelivery.js";
import { type DeliveryStats, decodeValue, encodeValue } from "./StoredDelivery.js";

const ZERO_STATS: DeliveryStats = { counters: ZERO_COUNTERS, recent: [] };

/**
 * Each webhook's delivery counters and recent attempts in the outbox bucket: changes are held
 * and written together (PendingStats.ts), off the delivery's path, each write naming the revision
 * this process last wrote (it is their only writer while it owns the partition).
 */
export const makeStatsStore = (kv: KV, writes: OutboxWrites, flushMs: number) => {
  /** Per webhook, the stats this process last wrote and their revision. */
  const written = new Map<string, { readonly stats: DeliveryStats; readonly revision: number }>();

  const readStored = async (webhookId: string) => {
    const entry = await kv.get(statsKey(webhookId));
    if (entry === null || entry.operation !== "PUT") return { stats: ZERO_STATS, revision: 0 };
    return { stats: decodeValue<DeliveryStats>(entry.value) ?? ZERO_STATS, revision: entry.revision };
  };

  const write = async (webhookId: string, change: (stats: DeliveryStats) => DeliveryStats) => {
    // Another process may have written since this one cached them (it owned the partition meanwhile): read again once.
    for (let attempt = 0; ; attempt++) {
      const held = (attempt === 0 ? written.get(webhookId) : undefined) ?? (await readStored(webhookId));
      const next = change(held.stats);
      try {
        const revision =
          held.revision === 0
            ? await writes.create(statsKey(webhookId), encodeValue(next))
            : await writes.update(statsKey(webhookId), encodeValue(next), held.revision);
        written.set(webhookId, { stats: next, revision });
        return;
      } catch (error) {
        written.delete(webhookId);
        if (attempt > 0 || !isRevisionConflict(error)) throw error;
      }
    }
  };

  const pending = new PendingStats(write, flushMs);
  return {
    /** Holds one attempt's change, written within the flush period. */
    add: (webhookId: string, change: StatsChange) => pending.add(webhookId, change),
    /** The webhook's stats as stored once every change held for it is written. */
    read: async (webhookId: string): Promise<DeliveryStats> => {
      await pending.flush(webhookId);
      return (await readStored(webhookId)).stats;
    },
    /** Drops what is held for the webhook (it was deleted). */
    forget: (webhookId: string) => {
      pending.forget(webhookId);
      written.delete(webhookId);
    },
    /** Writes every webhook's held changes (at shutdown). */
    flushAll: () => pending.flushAll(),
  } as const;
};

export type StatsStore = ReturnType<typeof makeStatsStore>;
