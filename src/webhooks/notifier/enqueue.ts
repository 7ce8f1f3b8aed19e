import { deliveryOrder } from "../outbox/outboxBucketKeys.js";
import type { QueuedDelivery } from "../outbox/QueuedDelivery.js";
import type { BlockEvents } from "./BlockEvents.js";
import { deliveryId, splitBodies } from "./deliveryBodies.js";

/**
 * Where the deliveries planned for one chain event go in their webhooks'
 * queues: after everything queued by earlier events (the stream's creation
 * time and the event's sequence), numbered per webhook within the event. The
 * same event planned again yields the same places, so it queues nothing twice.
 */
export class EventSlots {
  readonly #parts = new Map<string, number>();

  constructor(
    readonly streamEpochMs: number,
    readonly streamSeq: number,
  ) {}

  /** The next place for one of this event's deliveries to `webhookId`. */
  next(webhookId: string): string {
    const part = this.#parts.get(webhookId) ?? 0;
    this.#parts.set(webhookId, part + 1);
    return deliveryOrder(this.streamEpochMs, this.streamSeq, part);
  }
}

/**
 * Which appearance of a block the message at `slots` is: the stream (its creation time) and the
 * sequence of the block message that brought it. A block published again after a reorg removed it
 * is another message, so another appearance; the same message planned again is the same one.
 */
export const appearanceOf = (slots: EventSlots): string => `${slots.streamEpochMs}:${slots.streamSeq}`;

/**
 * The deliveries that queue a block's events for its webhook: one per body
 * (events split when they do not fit one), each with its deterministic
 * `webhook-id`. `removed` marks a retraction after a reorg; `appearance` is the
 * block's (appearanceOf of the message that brought it), whichever message queues them.
 */
export const enqueueDeliveries = (
  events: BlockEvents,
  removed: boolean,
  slots: EventSlots,
  now: number,
  appearance: string | undefined,
): ReadonlyArray<QueuedDelivery> =>
  splitBodies(
    events.type,
    events.events.map((event) => ({ ...event, removed })),
  ).map(
    (part, i): QueuedDelivery => ({
      seq: slots.streamSeq,
      order: slots.next(events.webhook_id),
      id: deliveryId(events.webhook_id, events.chain_id, events.block_hash, removed, i, appearance),
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
    }),
  );
