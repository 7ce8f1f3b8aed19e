import type { KV } from "@nats-io/kv";
import { isRevisionConflict } from "../../nats/revisionConflict.js";
import { webhookDeliveriesFilter } from "./outboxBucketKeys.js";
import { RECENT_ATTEMPTS } from "./QueuedDelivery.js";
import { decodeValue, encodeValue, type OwedDelivery, type StoredDelivery } from "./StoredDelivery.js";
import type { StatsStore } from "./statsStore.js";

/** Lists the outbox keys matching a filter (listOutboxKeys.ts). */
export type ListKeys = (filter: string) => Promise<Array<string>>;

const readDelivery = async (kv: KV, key: string) => {
  const entry = await kv.get(key);
  if (entry === null || entry.operation !== "PUT") return undefined;
  const value = decodeValue<StoredDelivery>(entry.value);
  return value === undefined ? undefined : { key, revision: entry.revision, value };
};

/** The webhook's deliveries as stored, in send order (read by any process, for operators). */
const storedDeliveries = async (kv: KV, listKeys: ListKeys, webhookId: string) => {
  const keys = (await listKeys(webhookDeliveriesFilter(webhookId))).sort();
  const entries = await Promise.all(keys.map((key) => readDelivery(kv, key)));
  return entries.filter((e) => e !== undefined);
};

/** Queues every dead-lettered delivery of the webhook again, attempts reset. Returns how many. */
export const redeliverDead = async (kv: KV, listKeys: ListKeys, webhookId: string): Promise<number> => {
  const dead = (await storedDeliveries(kv, listKeys, webhookId)).filter((e) => e.value.state === "dead");
  const requeued = await Promise.all(
    dead.map((e) =>
      kv
        .update(
          e.key,
          encodeValue({ ...(e.value as OwedDelivery), state: "queued", attempts: 0, next_attempt_at: 0 }),
          e.revision,
        )
        .then(
          () => 1,
          // Requeued or forgotten meanwhile: not this call's to count.
          (error: unknown) => {
            if (isRevisionConflict(error)) return 0;
            throw error;
          },
        ),
    ),
  );
  return requeued.reduce((a: number, b: number) => a + b, 0);
};

/** Everything operators see about one webhook, read from the bucket by whichever process is asked. */
export const deliveryReport = async (kv: KV, listKeys: ListKeys, stats: StatsStore, webhookId: string) => {
  const [stored, written] = await Promise.all([
    storedDeliveries(kv, listKeys, webhookId),
    stats.read(webhookId),
  ]);
  const queued = stored.flatMap((e) => (e.value.state === "queued" ? [e.value] : []));
  const dead = stored.flatMap((e) => (e.value.state === "dead" ? [e.value] : []));
  return {
    counters: written.counters,
    queued: queued.length,
    retrying: queued.filter((d) => d.attempts > 0).length,
    dead: dead.length,
    next_attempt_at: queued[0] === undefined ? null : queued[0].next_attempt_at,
    recent: [...written.recent].reverse(),
    deadLetters: dead.slice(-RECENT_ATTEMPTS),
  };
};
