import type { WebhookType } from "../../contracts/Webhooks.js";

type WebhookKind = typeof WebhookType.Type;

/**
 * One delivery in the outbox: a signed-at-send-time POST of `body` to a
 * webhook, for the events of one block on one chain (or part of them, when
 * they did not fit in one body). Written by the notifier to the replicated
 * outbox (src/webhooks/outbox/) before the chain event is acknowledged.
 */
export interface QueuedDelivery {
  /** The CHAIN_EVENTS stream sequence of the event that queued it. */
  readonly seq: number;
  /** Its place among the webhook's deliveries, the last token of its key (outboxBucketKeys.ts). */
  readonly order: string;
  /** `webhook-id`: `msg_` + 32 hex, the same on every attempt, redelivery and notifier replay. */
  readonly id: string;
  readonly webhook_id: string;
  readonly team_id: string;
  readonly type: WebhookKind;
  readonly chain_id: number;
  readonly block_number: number;
  readonly block_hash: string;
  /** A retraction of events of a block that was reorganised away. */
  readonly removed: boolean;
  /** Events in `body` (what CU are charged on). */
  readonly events: number;
  /** The exact JSON sent, so every attempt signs and sends the same bytes. */
  readonly body: string;
  /** When the notifier queued it (ms). */
  readonly created_at: number;
  /** Attempts made so far (0 before the first). */
  readonly attempts: number;
  /** Not before this time (ms); 0 = at once. */
  readonly next_attempt_at: number;
  /** HTTP status of the last attempt, or null when it got no answer. */
  readonly last_status: number | null;
  /** Why the last attempt failed, one line. */
  readonly last_error: string | null;
}

/** Per-webhook totals, kept next to the outbox. */
export interface DeliveryCounters {
  /** Deliveries that got a 2xx. */
  readonly delivered: number;
  /** Attempts that failed (a delivery retried 3 times and then delivered counts 3). */
  readonly failed: number;
  /** Deliveries moved to the dead-letter list after their last attempt. */
  readonly dead_lettered: number;
  /** Events delivered (CU charged on these). */
  readonly events_delivered: number;
  readonly last_status: number | null;
  readonly last_latency_ms: number | null;
  /** ISO time of the last attempt. */
  readonly last_attempt_at: string | null;
}

export const ZERO_COUNTERS: DeliveryCounters = {
  delivered: 0,
  failed: 0,
  dead_lettered: 0,
  events_delivered: 0,
  last_status: null,
  last_latency_ms: null,
  last_attempt_at: null,
};

/** One HTTP attempt, kept for operators (the last RECENT_ATTEMPTS per webhook). */
export interface AttemptRecord {
  readonly delivery_id: string;
  /** ISO time the attempt started. */
  readonly at: string;
  /** 0 for the first attempt of a delivery, as in `svc-webhook-retry-index`. */
  readonly retry_index: number;
  readonly status: number | null;
  readonly latency_ms: number;
  readonly outcome: "delivered" | "failed" | "dead_lettered" | "gone";
  readonly error: string | null;
}

/** How many attempts per webhook operators can see. */
export const RECENT_ATTEMPTS = 20;
