import type { QueuedDelivery } from "../outbox/QueuedDelivery.js";
import { signatureHeader } from "../secrets/signature.js";

/**
 * The headers of one attempt: Standard Webhooks (`webhook-id` stable across
 * attempts, `webhook-timestamp` of this attempt in unix seconds, one `v1,`
 * signature per valid secret) plus the service's own `svc-webhook-*` headers
 * mirroring the compatible API's `dune-webhook-*` ones.
 */
export const deliveryHeaders = (
  delivery: QueuedDelivery,
  secrets: ReadonlyArray<string>,
  nowMs: number,
): Record<string, string> => {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    "content-type": "application/json",
    "user-agent": "svc-webhooks/1",
    "webhook-id": delivery.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signatureHeader(secrets, delivery.id, timestamp, delivery.body),
    "svc-webhook-type": delivery.type,
    "svc-webhook-chain-id": String(delivery.chain_id),
    "svc-webhook-retry-index": String(delivery.attempts),
    "svc-webhook-dispatch-timestamp": new Date(nowMs).toISOString(),
    "svc-webhook-subscription-id": delivery.webhook_id,
  };
};
