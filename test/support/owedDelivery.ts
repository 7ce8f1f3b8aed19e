import { deliveryOrder } from "../../src/webhooks/outbox/outboxBucketKeys.js";
import type { OwedDelivery } from "../../src/webhooks/outbox/StoredDelivery.js";

/** A queued delivery of one event for `webhookId`, queued by the chain event at stream sequence `seq`. */
export const owed = (webhookId: string, seq: number, over: Partial<OwedDelivery> = {}): OwedDelivery => ({
  state: "queued",
  seq,
  order: deliveryOrder(1_700_000_000_000, seq, 0),
  id: `msg_${seq}`,
  webhook_id: webhookId,
  team_id: "TEAM",
  type: "transactions",
  chain_id: 1,
  block_number: seq,
  block_hash: `0x${seq}`,
  removed: false,
  events: 1,
  body: "{}",
  created_at: 0,
  attempts: 0,
  next_attempt_at: 0,
  last_status: null,
  last_error: null,
  ...over,
});
