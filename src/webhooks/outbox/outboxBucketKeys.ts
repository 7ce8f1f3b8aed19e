import { createHash } from "node:crypto";

/**
 * Key layout of the replicated webhook outbox, the `webhook_outbox` KV bucket
 * (every API process reads and writes it; replicas from JETSTREAM_REPLICAS).
 * Webhooks are split into PARTITIONS partitions; one API process at a time
 * owns a partition (its lease) and sends its deliveries.
 *
 * - `d.<pp>.<webhook>.<order>` -> StoredDelivery: queued (waiting or retrying), dead-lettered, or a
 *   `done` marker that stops a replayed chain event queuing it again (swept after DONE_KEPT_MS)
 * - `st.<webhook>`             -> DeliveryStats: counters and the recent attempts
 * - `lease.<pp>`               -> the partition's lease (src/ingest/lease/LeaseStore.ts's record)
 *
 * `<order>` sorts as the webhook's deliveries must be sent: the CHAIN_EVENTS stream's creation
 * time (a devnet restart makes a new stream whose sequences start again), the chain event's
 * stream sequence, and the part within that event. It is derived from the event alone, so
 * planning the same event twice (on any process) names the same keys.
 */
export const PARTITIONS = 16;

const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** Partitions of the webhooks seen lately: a hash per lookup was a visible share of each delivery's CPU. */
const partitionCache = new Map<string, number>();
const PARTITION_CACHE_SIZE = 100_000;

/** The partition of a webhook: a stable hash of its id. */
export const partitionOf = (webhookId: string): number => {
  const cached = partitionCache.get(webhookId);
  if (cached !== undefined) return cached;
  const partition = createHash("sha256").update(webhookId).digest().readUInt32BE(0) % PARTITIONS;
  if (partitionCache.size >= PARTITION_CACHE_SIZE) partitionCache.clear();
  partitionCache.set(webhookId, partition);
  return partition;
};

const pp = (partition: number) => pad(partition, 2);

/** Where one delivery sits among its webhook's deliveries (see the layout above). */
export const deliveryOrder = (streamEpochMs: number, streamSeq: number, part: number): string =>
  `${pad(streamEpochMs, 13)}-${pad(streamSeq, 14)}-${pad(part, 5)}`;

export const deliveryKey = (webhookId: string, order: string) =>
  `d.${pp(partitionOf(webhookId))}.${webhookId}.${order}`;
/** Every delivery key of a webhook. */
export const webhookDeliveriesFilter = (webhookId: string) =>
  `d.${pp(partitionOf(webhookId))}.${webhookId}.>`;
/** Every delivery key of a partition. */
export const partitionFilter = (partition: number): `${string}.>` => `d.${pp(partition)}.>`;

/** The webhook id and order of a delivery key, or undefined for another key. */
export const parseDeliveryKey = (
  key: string,
): { readonly webhookId: string; readonly order: string } | undefined => {
  // Read several times per delivery: found by position rather than split into an array.
  if (!key.startsWith("d.")) return undefined;
  const webhookAt = key.indexOf(".", 2) + 1;
  const orderAt = webhookAt === 0 ? 0 : key.indexOf(".", webhookAt) + 1;
  if (orderAt === 0 || key.includes(".", orderAt)) return undefined;
  return { webhookId: key.slice(webhookAt, orderAt - 1), order: key.slice(orderAt) };
};

export const statsKey = (webhookId: string) => `st.${webhookId}`;

export const leaseKey = (partition: number) => `lease.${pp(partition)}`;
