import { AckPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect, Schedule, Schema } from "effect";
import { UsageRecord } from "../../domain/Usage.js";
import { PULL_EXPIRES_MS } from "../../nats/pullOptions.js";
import {
  addToHour,
  addToMonth,
  applyOnce,
  type HourAggregate,
  type MonthAggregate,
} from "./usageAggregates.js";

const DURABLE = "usage-aggregator";
const decodeRecord = Schema.decodeUnknownOption(UsageRecord);

/**
 * Folds the USAGE stream into the hourly and monthly aggregates of the `usage`
 * bucket. Every API process runs one; they share a durable consumer with one
 * message in flight, so records are applied strictly in stream order whichever
 * process takes them, which is what makes the `seq` check in `applyOnce` exact.
 */
export const runUsageAggregator = (nc: NatsConnection, usage: KV) =>
  Effect.gen(function* () {
    const jsm = yield* Effect.tryPromise(() => jetstreamManager(nc));
    yield* Effect.tryPromise(async () => {
      try {
        await jsm.consumers.info("USAGE", DURABLE);
      } catch {
        await jsm.consumers.add("USAGE", {
          durable_name: DURABLE,
          ack_policy: AckPolicy.Explicit,
          max_ack_pending: 1,
          ack_wait: 30_000_000_000,
        });
      }
    });
    const consumer = yield* Effect.tryPromise(() => jetstream(nc).consumers.get("USAGE", DURABLE));
    const messages = yield* Effect.tryPromise(() =>
      consumer.consume({ max_messages: 64, expires: PULL_EXPIRES_MS }),
    );
    yield* Effect.addFinalizer(() => Effect.promise(() => messages.close().then(() => undefined)));
    yield* Effect.tryPromise(async () => {
      for await (const message of messages) {
        const record = decodeRecord(message.json());
        if (record._tag === "None") {
          message.term("not a usage record");
          continue;
        }
        const seq = message.seq;
        const r = record.value;
        await applyOnce<HourAggregate>(usage, `hour.${r.hour}`, { seq: 0, rows: {} }, seq, (c) =>
          addToHour(c, r, seq),
        );
        await applyOnce<MonthAggregate>(
          usage,
          `month.${r.hour.slice(0, 6)}`,
          { seq: 0, teams: {} },
          seq,
          (c) => addToMonth(c, r, seq),
        );
        message.ack();
      }
    });
  }).pipe(
    Effect.tapErrorCause((cause) => Effect.logWarning("usage aggregator stopped; restarting", cause)),
    Effect.retry(Schedule.spaced("1 second")),
  );
