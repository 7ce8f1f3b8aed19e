import { jetstreamManager } from "@nats-io/jetstream";
import type { KvEntry } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { openBucket } from "../../src/nats/JetStreamSetup.js";
import { leaderReads } from "../../src/nats/leaderReads.js";
import { chainListKey } from "../../src/webhooks/notifier/kvBlockRecords.js";
import { NOTIFIER_DURABLE } from "../../src/webhooks/notifier/Notifier.js";
import { listOutboxKeys } from "../../src/webhooks/outbox/listOutboxKeys.js";
import {
  leaseKey,
  partitionOf,
  webhookDeliveriesFilter,
} from "../../src/webhooks/outbox/outboxBucketKeys.js";

/** A published block a webhook is owed, as the test knows it: its hash and CHAIN_EVENTS sequence. */
export interface OwedBlock {
  readonly number: number;
  readonly hash: string;
  readonly seq: number;
}

const orSay = <A>(what: Promise<A>) => what.catch((error: unknown) => `(${String(error)})`);

/** A stored delivery's state and attempts (the body, written first, would hide them in a cut). */
const deliveryState = (text: string): string => {
  try {
    const d = JSON.parse(text) as {
      state?: string;
      attempts?: number;
      next_attempt_at?: number;
      last_error?: string | null;
    };
    const due =
      d.next_attempt_at === undefined || d.next_attempt_at <= 0
        ? ""
        : `, next attempt in ${d.next_attempt_at - Date.now()} ms`;
    return `${d.state ?? "?"}, ${d.attempts ?? "?"} attempts${due}${d.last_error ? `, last error ${d.last_error}` : ""}`;
  } catch {
    return text.slice(0, 160);
  }
};

/**
 * Where the blocks a webhook never received stopped, read from the cluster (as the `api` user): how
 * far the shared notifier consumer got, whether each block is in the chain's block records and its
 * delivery in the outbox (and in which state), and who holds the webhook's partition. A failed
 * delivery wait prints this, so a stall is located by the run that shows it.
 */
export const diagnoseUndelivered = async (
  api: NatsConnection,
  webhookId: string,
  missing: ReadonlyArray<OwedBlock>,
): Promise<string> => {
  const lines: Array<string> = [];
  const jsm = await jetstreamManager(api);
  const consumer = await orSay(jsm.consumers.info("CHAIN_EVENTS", NOTIFIER_DURABLE));
  lines.push(
    typeof consumer === "string"
      ? `notifier consumer: ${consumer}`
      : `notifier consumer: delivered seq ${consumer.delivered.stream_seq}, ack floor ${consumer.ack_floor.stream_seq}, ack pending ${consumer.num_ack_pending}, pending ${consumer.num_pending}, redelivered ${consumer.num_redelivered}, leader ${consumer.cluster?.leader}`,
  );
  const outbox = await Effect.runPromise(openBucket(api, "webhook_outbox"));
  const blocks = await Effect.runPromise(openBucket(api, "webhook_blocks"));
  // The lease as a replica's direct get shows it and as the stream's leader holds it: takeovers are
  // written against the revision read, so the two disagreeing explains a partition nobody takes.
  const partitionLease = leaseKey(partitionOf(webhookId));
  const leaseLine = (entry: KvEntry | null | string) =>
    typeof entry === "string"
      ? entry
      : entry === null
        ? "none"
        : `r${entry.revision}, ${entry.string()}, written ${Date.now() - entry.created.getTime()} ms before this`;
  const direct = await orSay(outbox.get(partitionLease));
  const atLeader = await orSay(leaderReads(outbox).get(partitionLease));
  lines.push(
    `partition ${partitionOf(webhookId)} lease: ${leaseLine(direct)}; at the leader: ${leaseLine(atLeader)}`,
  );
  // Listed as the service lists them (the stream's subjects, answered by its leader).
  const listed = await orSay(listOutboxKeys(await jetstreamManager(api))(webhookDeliveriesFilter(webhookId)));
  const keys = typeof listed === "string" ? [] : listed;
  if (typeof listed === "string") lines.push(`outbox keys of the webhook could not be listed: ${listed}`);
  const records = await orSay(blocks.get(chainListKey(1)));
  const recorded =
    typeof records === "string" || records === null
      ? []
      : (records.json() as Array<{ number: number; hash: string; released: boolean }>);
  lines.push(`outbox keys of the webhook: ${keys.length}; block records of chain 1: ${recorded.length}`);
  for (const block of missing) {
    const key = keys.find((k) => k.includes(`-${String(block.seq).padStart(14, "0")}-`));
    const entry = key === undefined ? undefined : await orSay(outbox.get(key));
    const state =
      entry === undefined
        ? "no outbox key"
        : typeof entry === "string" || entry === null
          ? `outbox: ${entry}`
          : `outbox ${entry.operation} r${entry.revision}: ${deliveryState(entry.string())}`;
    const record = recorded.find((r) => r.hash === block.hash);
    // The records keep the newest blocks only (finality depth plus confirmations): older ones are
    // not in them by design, and deliveries never read them.
    const oldest = recorded.length === 0 ? undefined : Math.min(...recorded.map((r) => r.number));
    const where =
      record !== undefined
        ? `recorded, released ${record.released}`
        : oldest !== undefined && block.number < oldest
          ? "older than the records' window"
          : "not in the records";
    lines.push(`block ${block.number} (seq ${block.seq}): ${where}; ${state}`);
  }
  return lines.join("\n");
};
