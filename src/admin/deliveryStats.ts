import type { Schema } from "effect";
import type { DeadLetter, WebhookDeliveryStats } from "../contracts/Admin.js";
import type { Outbox } from "../webhooks/outbox/Outbox.js";

type Stats = Schema.Schema.Type<typeof WebhookDeliveryStats>;
type Dead = Schema.Schema.Type<typeof DeadLetter>;

const iso = (ms: number) => new Date(ms).toISOString();

/** The replicated outbox's figures for one webhook, in the contract's shape (`nodes: 1`: one outbox). */
export const nodeStats = async (outbox: Outbox, webhookId: string): Promise<Stats> => {
  const report = await outbox.report(webhookId);
  const c = report.counters;
  return {
    webhook_id: webhookId,
    delivered: c.delivered,
    failed: c.failed,
    retrying: report.retrying,
    dead_lettered: report.dead,
    dead_lettered_total: c.dead_lettered,
    queued: report.queued,
    events_delivered: c.events_delivered,
    last_status: c.last_status,
    last_latency_ms: c.last_latency_ms,
    last_attempt_at: c.last_attempt_at,
    next_attempt_at:
      report.next_attempt_at === null || report.next_attempt_at === 0 ? null : iso(report.next_attempt_at),
    recent_attempts: report.recent,
    dead_letters: report.deadLetters.map(
      (d): Dead => ({
        delivery_id: d.id,
        chain_id: d.chain_id,
        block_number: d.block_number,
        block_hash: d.block_hash,
        removed: d.removed,
        events: d.events,
        attempts: d.attempts,
        last_status: d.last_status,
        last_error: d.last_error,
        created_at: iso(d.created_at),
      }),
    ),
    nodes: 1,
  };
};
