import type { Operation } from "../../indexer/applyBlock.js";
import { queueKey } from "../delivery/outboxKeys.js";
import type { QueuedDelivery } from "../delivery/QueuedDelivery.js";
import type { BlockEvents } from "./BlockEvents.js";
import { deliveryId, splitBodies } from "./deliveryBodies.js";

/** The notifier's running outbox sequence while it plans one batch. */
export interface SeqCounter {
  value: number;
}

/**
 * The outbox writes that queue a block's events for its webhook: one delivery
 * per body (events split when they do not fit one), each with its
 * deterministic `webhook-id`. `removed` marks a retraction after a reorg.
 */
export const enqueueOps = (
  events: BlockEvents,
  removed: boolean,
  seq: SeqCounter,
  now: number,
): ReadonlyArray<Operation> =>
  splitBodies(
    events.type,
    events.events.map((event) => ({ ...event, removed })),
  ).map((part, i): Operation => {
    seq.value += 1;
    const delivery: QueuedDelivery = {
      seq: seq.value,
      id: deliveryId(events.webhook_id, events.chain_id, events.block_hash, removed, i),
      webhook_id: events.webhook_id,
      team_id: events.team_id,
      type: events.type,
      chain_id: events.chain_id,
      block_number: events.block_number,
      block_hash: events.block_hash,
      removed,
      events: part.events,
      body: part.body,
      created_at: now,
      attempts: 0,
      next_attempt_at: 0,
      last_status: null,
      last_error: null,
    };
    return { type: "put", key: queueKey(events.webhook_id, seq.value), value: delivery };
  });
