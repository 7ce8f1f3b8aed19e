import type { Schema } from "effect";
import type { DeadLetter, DeliveryAttempt, WebhookDeliveryStats } from "../contracts/Admin.js";
import type { Outbox } from "../webhooks/delivery/Outbox.js";

type Stats = Schema.Schema.Type<typeof WebhookDeliveryStats>;
type Attempt = Schema.Schema.Type<typeof DeliveryAttempt>;
type Dead = Schema.Schema.Type<typeof DeadLetter>;

const iso = (ms: number) => new Date(ms).toISOString();

/** One node's figures for one webhook, in the contract's shape (`nodes: 1`). */
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

const later = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a > b ? a : b);
const sooner = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a < b ? a : b);

/** Sums several nodes' figures for one webhook: counts add, the newest attempt sets the last status. */
export const mergeStats = (webhookId: string, parts: ReadonlyArray<Stats>): Stats => {
  const sum = (
    field:
      | "delivered"
      | "failed"
      | "retrying"
      | "dead_lettered"
      | "dead_lettered_total"
      | "queued"
      | "events_delivered",
  ) => parts.reduce((total, p) => total + p[field], 0);
  const newest = parts.reduce<Stats | undefined>(
    (best, p) =>
      p.last_attempt_at !== null &&
      (best === undefined || later(best.last_attempt_at, p.last_attempt_at) === p.last_attempt_at)
        ? p
        : best,
    undefined,
  );
  const attempts: Array<Attempt> = parts
    .flatMap((p) => [...p.recent_attempts])
    .sort((a, b) => (a.at < b.at ? 1 : -1));
  const dead: Array<Dead> = parts
    .flatMap((p) => [...p.dead_letters])
    .sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
  return {
    webhook_id: webhookId,
    delivered: sum("delivered"),
    failed: sum("failed"),
    retrying: sum("retrying"),
    dead_lettered: sum("dead_lettered"),
    dead_lettered_total: sum("dead_lettered_total"),
    queued: sum("queued"),
    events_delivered: sum("events_delivered"),
    last_status: newest?.last_status ?? null,
    last_latency_ms: newest?.last_latency_ms ?? null,
    last_attempt_at: newest?.last_attempt_at ?? null,
    next_attempt_at: parts.reduce<string | null>((at, p) => sooner(at, p.next_attempt_at), null),
    recent_attempts: attempts.slice(0, 20),
    dead_letters: dead.slice(0, 20),
    nodes: parts.length,
  };
};
