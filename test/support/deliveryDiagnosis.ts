import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { openBucket } from "../../src/nats/JetStreamSetup.js";
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
  const lease = await orSay(outbox.get(leaseKey(partitionOf(webhookId))));
  lines.push(
    `partition ${partitionOf(webhookId)} lease: ${typeof lease === "string" ? lease : (lease?.string() ?? "none")}`,
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
          : `outbox ${entry.operation} r${entry.revision}: ${entry.string().slice(0, 160)}`;
    const record = recorded.find((r) => r.hash === block.hash);
    lines.push(
      `block ${block.number} (seq ${block.seq}): ${record === undefined ? "not in the records" : `recorded, released ${record.released}`}; ${state}`,
    );
  }
  return lines.join("\n");
};
