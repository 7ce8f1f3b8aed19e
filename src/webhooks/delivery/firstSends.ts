import type { OwnedPartitions } from "../outbox/OwnedPartitions.js";
import { deliveryKey } from "../outbox/outboxBucketKeys.js";
import type { PartitionIndex } from "../outbox/PartitionIndex.js";
import type { QueuedDelivery } from "../outbox/QueuedDelivery.js";
import { SlowReceivers } from "../outbox/SlowReceivers.js";
import type { OwedDelivery, StoredDelivery } from "../outbox/StoredDelivery.js";
import { firstAttemptWaitMs, UnstoredDeliveries } from "../outbox/UnstoredDeliveries.js";

/** What sending before storing needs of the outbox. */
export interface FirstSendsPort {
  readonly owned: OwnedPartitions;
  /** Creates a delivery's key; one already there is kept as it is (Outbox.ts). */
  readonly createDelivery: (webhookId: string, key: string, value: StoredDelivery) => Promise<void>;
  /** Stores deliveries as queued, all writes in flight at once (Outbox.enqueue). */
  readonly enqueue: (deliveries: ReadonlyArray<QueuedDelivery>) => Promise<void>;
  readonly now: () => number;
  /** Waits `ms` (the notifier's wait for first attempts). */
  readonly sleep: (ms: number) => Promise<void>;
}

/**
 * Deliveries to quick receivers sent before they are stored: a delivery
 * delivered at its first attempt costs no outbox write. Holds the chain
 * event's deliveries until each is delivered or stored, decides which webhooks
 * go first (SlowReceivers.ts) and stores what their attempts leave owed.
 */
export const makeFirstSends = ({ owned, createDelivery, enqueue, now, sleep }: FirstSendsPort) => {
  const unstored = new UnstoredDeliveries();
  const slow = new SlowReceivers();

  /**
   * Queues one chain event's deliveries (the notifier's call). With
   * `firstSends` (the notifier planned the stream's previous message itself,
   * so nothing another node queued since can be missing from this one's
   * indexes), a delivery to a webhook whose partition this process owns, whose
   * queue is empty and whose receiver is not slow is attempted first, and
   * stored only if that attempt does not deliver it. The others are stored at
   * once. Resolves once every one is delivered or stored, with those
   * delivered unstored; the notifier acknowledges the event only then, so
   * until then a crash replays the event and the CHAIN_EVENTS stream holds
   * what is not stored. Those not settled within firstAttemptWaitMs are
   * stored (their webhooks then count as slow), so one slow receiver holds
   * back the next block no longer than that.
   */
  const queueEvent = async (
    deliveries: ReadonlyArray<QueuedDelivery>,
    options: {
      readonly firstSends: boolean;
      /**
       * Webhooks made inactive: their deliveries (a reorg's retractions) are stored at once, to
       * wait for a reactivation, as no attempt would send them.
       */
      readonly inactive?: (webhookId: string) => boolean;
    },
  ): Promise<ReadonlyArray<QueuedDelivery>> => {
    const stored: Array<QueuedDelivery> = [];
    const first: Array<{
      readonly delivery: QueuedDelivery;
      readonly key: string;
      readonly value: OwedDelivery;
    }> = [];
    /** Per webhook, whether this event's deliveries to it go first (all of them do, or none: they keep their order). */
    const goesFirst = new Map<string, boolean>();
    for (const d of deliveries) {
      let yes = goesFirst.get(d.webhook_id);
      if (yes === undefined) {
        const index = options.firstSends ? owned.indexOf(d.webhook_id) : undefined;
        yes =
          index !== undefined &&
          index.head(d.webhook_id) === undefined &&
          !slow.has(d.webhook_id) &&
          options.inactive?.(d.webhook_id) !== true;
        goesFirst.set(d.webhook_id, yes);
      }
      if (yes)
        first.push({
          delivery: d,
          key: deliveryKey(d.webhook_id, d.order),
          value: { ...d, state: "queued" },
        });
      else stored.push(d);
    }
    const storeHeld = (webhookId: string, key: string) =>
      unstored.store(key, (value) => createDelivery(webhookId, key, value));
    /** Those the index would not hold (a key it holds already: a replay) are stored at once. */
    const storedAtOnce: Array<Promise<void>> = [];
    const settled = first.map(({ delivery, key, value }) => {
      const how = unstored.add(key, value);
      if (!owned.holdUnstored(delivery.webhook_id, key, value))
        storedAtOnce.push(storeHeld(delivery.webhook_id, key));
      return how;
    });
    const firstAttempts = async () => {
      if (first.length === 0) return;
      const waited = sleep(firstAttemptWaitMs(first.length)).then(() => false);
      const allSettled = Promise.all([...settled, ...storedAtOnce]).then(() => true);
      // A store failing after the wait ran out is awaited below.
      allSettled.catch(() => undefined);
      if (await Promise.race([allSettled, waited])) return;
      await Promise.all(storedAtOnce);
      await Promise.all(
        first
          .filter(({ key }) => unstored.has(key))
          .map(({ delivery, key }) => {
            slow.timedOut(delivery.webhook_id);
            return storeHeld(delivery.webhook_id, key);
          }),
      );
    };
    const deliveredUnstored = async () => {
      const how = await Promise.all(settled);
      return first.flatMap(({ delivery }, i) => (how[i] === "delivered" ? [delivery] : []));
    };
    try {
      await Promise.all([enqueue(stored), firstAttempts()]);
    } catch (error) {
      // The notifier offers the event again, which plans these again: held here, they would be sent twice.
      for (const { delivery, key } of first)
        if (unstored.has(key)) {
          unstored.release(key);
          owned.heldIndexOf(delivery.webhook_id)?.dropUnstored(key);
        }
      await markDelivered(await deliveredUnstored()).catch(() => undefined);
      throw error;
    }
    return deliveredUnstored();
  };

  /**
   * Writes done markers for deliveries delivered without being stored whose
   * chain event could not be acknowledged after all (its records' write
   * failed): the event is planned again, on any node, and a done marker keeps
   * a delivered one from being queued a second time, as for any delivery.
   */
  const markDelivered = async (deliveries: ReadonlyArray<QueuedDelivery>) => {
    await Promise.all(
      deliveries.map((d) =>
        createDelivery(d.webhook_id, deliveryKey(d.webhook_id, d.order), {
          state: "done",
          id: d.id,
          webhook_id: d.webhook_id,
          order: d.order,
          done_at: now(),
        }),
      ),
    );
  };

  /**
   * Records the attempt of a delivery the index holds unstored: delivered,
   * nothing is written (the notifier acknowledges its event next); otherwise
   * it is stored as the attempt left it, to be retried like any other.
   */
  const recordUnstored = async (index: PartitionIndex, key: string, value: StoredDelivery) => {
    if (value.state === "done") {
      index.dropUnstored(key);
      unstored.delivered(key);
      return;
    }
    // Through the notifier's hold when it still has one (so the store its wait may start is the same write);
    // else its event was given up and will be planned again, which keeps what this stores.
    const write = () => createDelivery(value.webhook_id, key, value);
    await (unstored.has(key) ? unstored.store(key, write) : write());
  };

  /** Lets go of what is held for a deleted webhook: stored when the wait runs out, it would outlive the purge. */
  const forget = (webhookId: string) => {
    slow.forget(webhookId);
    for (const key of unstored.releaseWebhook(webhookId)) owned.heldIndexOf(webhookId)?.dropUnstored(key);
  };

  return {
    queueEvent,
    markDelivered,
    recordUnstored,
    /** The store the notifier's wait started for `key`, if one is under way: an attempt's record goes over it. */
    storing: (key: string) => unstored.storing(key)?.catch(() => undefined),
    /** Tells the receiver's latency to the slow-receiver rule. */
    answered: (webhookId: string, latencyMs: number, delivered: boolean) =>
      slow.answered(webhookId, latencyMs, delivered),
    forget,
  } as const;
};
