import type { AttemptEnd, Outbox } from "../outbox/Outbox.js";
import type { AttemptRecord, QueuedDelivery } from "../outbox/QueuedDelivery.js";
import { SealedSecretError, type SecretSealer } from "../secrets/secretSealing.js";
import { signingSecrets } from "../secrets/signingSecret.js";
import type { WebhookRecord } from "../WebhookRecord.js";
import type { DeliveryCharges } from "./DeliveryCharges.js";
import { deliveryHeaders } from "./deliveryHeaders.js";
import type { HttpSender, SendResult } from "./HttpSender.js";
import { parseRetryAfter, retryDelay } from "./retrySchedule.js";

/** What an attempt needs besides the delivery and the webhook. */
export interface AttemptDeps {
  readonly outbox: Outbox;
  readonly sender: Pick<HttpSender, "post">;
  /** Delays between attempts, ms (AppConfig webhookRetrySchedule). */
  readonly schedule: ReadonlyArray<number>;
  readonly now: () => number;
  /** In [0, 1), for jitter. */
  readonly random: () => number;
  /** Charges the team for a delivery's events, once however often it is sent (DeliveryCharges.ts). */
  readonly charges: Pick<DeliveryCharges, "delivered" | "recorded">;
  /** Makes the webhook inactive (a 410 answer). */
  readonly markGone: (record: WebhookRecord) => Promise<void>;
  /** Opens the stored signing secrets. */
  readonly sealer: Pick<SecretSealer, "reveal">;
}

/**
 * Signs and POSTs; a secret this process cannot open (sealed with a key it does
 * not hold) fails the attempt without sending, so it is retried like any other
 * failure and the reason shows in the webhook's attempts.
 */
const send = async (
  deps: AttemptDeps,
  record: WebhookRecord,
  delivery: QueuedDelivery,
  startedAt: number,
) => {
  let secrets: ReadonlyArray<string>;
  try {
    secrets = signingSecrets(record.secrets, startedAt).map((stored) =>
      deps.sealer.reveal(stored, record.id),
    );
  } catch (error) {
    if (!(error instanceof SealedSecretError)) throw error;
    return { status: null, headers: {}, error: error.message, latencyMs: 0 } satisfies SendResult;
  }
  return deps.sender.post(record.url, deliveryHeaders(delivery, secrets, startedAt), delivery.body);
};

/** Success is a 2xx; 410 disables; anything else (3xx included, no answer included) is retried. */
export const classify = (
  result: SendResult,
  delivery: QueuedDelivery,
  schedule: ReadonlyArray<number>,
  now: number,
  random: number,
): AttemptEnd => {
  const status = result.status;
  if (status !== null && status >= 200 && status <= 299) return { kind: "delivered" };
  if (status === 410) return { kind: "gone" };
  const delay = retryDelay(schedule, delivery.attempts + 1, random);
  if (delay === undefined) return { kind: "deadLettered" };
  const asked = parseRetryAfter(result.headers["retry-after"], now);
  return { kind: "retry", at: now + Math.max(delay, asked ?? 0) };
};

/**
 * One attempt of `delivery` to `record`'s URL: sign with every valid secret,
 * POST, decide, and record the attempt and its consequence in the outbox
 * before returning it (so a crash after this point never repeats the decision,
 * and a crash before it repeats the attempt with the same webhook-id). A 2xx is
 * charged before the record is written, once per delivery.
 */
export const attemptDelivery = async (
  deps: AttemptDeps,
  record: WebhookRecord,
  delivery: QueuedDelivery,
): Promise<AttemptEnd> => {
  const startedAt = deps.now();
  const result = await send(deps, record, delivery, startedAt);
  const outcome = classify(result, delivery, deps.schedule, deps.now(), deps.random());
  const attempt: AttemptRecord = {
    delivery_id: delivery.id,
    at: new Date(startedAt).toISOString(),
    retry_index: delivery.attempts,
    status: result.status,
    latency_ms: result.latencyMs,
    outcome:
      outcome.kind === "delivered"
        ? "delivered"
        : outcome.kind === "deadLettered"
          ? "dead_lettered"
          : outcome.kind === "gone"
            ? "gone"
            : "failed",
    error: result.error ?? (outcome.kind === "delivered" ? null : `HTTP ${result.status}`),
  };
  if (outcome.kind === "delivered") deps.charges.delivered(delivery);
  await deps.outbox.recordAttempt(delivery, attempt, outcome);
  if (outcome.kind === "delivered") deps.charges.recorded(delivery);
  if (outcome.kind === "gone") await deps.markGone(record);
  return outcome;
};
