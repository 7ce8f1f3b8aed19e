import { AckPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect, Schema } from "effect";
import { UsageRecord } from "../domain/Usage.js";
import { PULL_EXPIRES_MS } from "../nats/pullOptions.js";
import { consumeEach, restarting, type Verdict, Verdicts } from "../nats/runConsumer.js";
import {
  addToHour,
  addToMonth,
  applyOnce,
  type HourAggregate,
  type MonthAggregate,
} from "./usageAggregates.js";

const DURABLE = "usage-aggregator";
/**
 * How long a record may stay unacknowledged before it is offered again: an ack lost with a
 * server holds every later record this long (a record's writes take milliseconds; applying one
 * twice is harmless, `applyOnce` skips it).
 */
const ACK_WAIT_NS = 10_000_000_000;
/** How soon a record whose aggregates could not be written is offered again, ms. */
const RETRY_AFTER_MS = 500;
const decodeRecord = Schema.decodeUnknownOption(UsageRecord);
const decoder = new TextDecoder();

/** The message's JSON, or undefined when it is not JSON (then dropped as not a usage record). */
const jsonOf = (data: Uint8Array): unknown => {
  try {
    return JSON.parse(decoder.decode(data));
  } catch {
    return undefined;
  }
};

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
      const info = await jsm.consumers.info("USAGE", DURABLE).catch(() => undefined);
      if (info === undefined)
        await jsm.consumers.add("USAGE", {
          durable_name: DURABLE,
          ack_policy: AckPolicy.Explicit,
          max_ack_pending: 1,
          ack_wait: ACK_WAIT_NS,
        });
      else if (info.config.ack_wait !== ACK_WAIT_NS)
        await jsm.consumers.update("USAGE", DURABLE, { ack_wait: ACK_WAIT_NS });
    });
    const consumer = yield* Effect.tryPromise(() => jetstream(nc).consumers.get("USAGE", DURABLE));
    const messages = yield* Effect.tryPromise(() =>
      consumer.consume({ max_messages: 64, expires: PULL_EXPIRES_MS }),
    );
    yield* Effect.addFinalizer(() => Effect.promise(() => messages.close().then(() => undefined)));
    return yield* consumeEach("usage aggregator", messages, (message): Effect.Effect<Verdict> => {
      const record = decodeRecord(jsonOf(message.data));
      if (record._tag === "None")
        return Effect.as(
          Effect.logError("usage message is not a usage record; dropped", { seq: message.seq }),
          Verdicts.term,
        );
      const seq = message.seq;
      const r = record.value;
      return Effect.tryPromise(async () => {
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
      }).pipe(
        Effect.as(Verdicts.ack),
        // A storage failure (a timeout while a bucket elects a leader): offer the record again
        // shortly. Left unacknowledged it would hold every later record for the whole ack wait.
        Effect.catchAll((error) =>
          Effect.as(
            Effect.logWarning("usage record not applied; retrying", { seq, error: String(error.error) }),
            Verdicts.nak(RETRY_AFTER_MS),
          ),
        ),
      );
    });
  }).pipe(
    // Each run closes its own pull before the next starts: a pull left open holds the one record in
    // flight with nobody reading it, which stalls every team's usage for an ack wait at a time.
    Effect.scoped,
    restarting("usage aggregator"),
  );
