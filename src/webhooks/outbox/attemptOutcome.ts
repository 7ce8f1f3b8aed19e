import type { AttemptRecord, DeliveryCounters, QueuedDelivery } from "./QueuedDelivery.js";
import type { OwedDelivery, StoredDelivery } from "./StoredDelivery.js";

/** How one attempt ended, as the dispatcher records it. */
export type AttemptEnd =
  | { readonly kind: "delivered" }
  | { readonly kind: "retry"; readonly at: number }
  | { readonly kind: "deadLettered" }
  /** 410: the webhook is made inactive; the delivery stays queued for a reactivation. */
  | { readonly kind: "gone" };

/** The webhook's counters after an attempt. */
export const nextCounters = (
  before: DeliveryCounters,
  delivery: QueuedDelivery,
  attempt: AttemptRecord,
  outcome: AttemptEnd,
): DeliveryCounters => {
  const delivered = outcome.kind === "delivered";
  return {
    delivered: before.delivered + (delivered ? 1 : 0),
    failed: before.failed + (delivered ? 0 : 1),
    dead_lettered: before.dead_lettered + (outcome.kind === "deadLettered" ? 1 : 0),
    events_delivered: before.events_delivered + (delivered ? delivery.events : 0),
    last_status: attempt.status,
    last_latency_ms: attempt.latency_ms,
    last_attempt_at: attempt.at,
  };
};

/** What a delivery becomes after an attempt. */
export const afterAttempt = (
  delivery: QueuedDelivery,
  attempt: AttemptRecord,
  outcome: AttemptEnd,
  now: number,
): StoredDelivery => {
  if (outcome.kind === "delivered")
    return {
      state: "done",
      id: delivery.id,
      webhook_id: delivery.webhook_id,
      order: delivery.order,
      done_at: now,
    };
  const after: OwedDelivery = {
    ...delivery,
    state: outcome.kind === "deadLettered" ? "dead" : "queued",
    attempts: delivery.attempts + 1,
    last_status: attempt.status,
    last_error: attempt.error,
    next_attempt_at: outcome.kind === "retry" ? outcome.at : 0,
  };
  return after;
};
