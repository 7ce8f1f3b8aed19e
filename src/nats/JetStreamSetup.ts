import { type JetStreamManager, jetstreamManager, type StreamConfig } from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { JetStreamSetupError } from "./NatsError.js";

const DAY_NANOS = 24 * 60 * 60 * 1_000_000_000;

/** Streams of the architecture, created idempotently at start. */
export const STREAMS: ReadonlyArray<
  Pick<StreamConfig, "name" | "subjects" | "max_age" | "duplicate_window">
> = [
  // Blocks and reorgs; consumers keep their own checkpoints, a week covers any restart.
  { name: "CHAIN_EVENTS", subjects: ["chain.>"], max_age: 7 * DAY_NANOS, duplicate_window: 120_000_000_000 },
  // Compute-unit records; aggregates live in the `usage` bucket, so the raw records need only outlive a month.
  { name: "USAGE", subjects: ["usage.>"], max_age: 35 * DAY_NANOS, duplicate_window: 120_000_000_000 },
];

/** KV buckets of the architecture; `ttl` in ms (0 keeps values forever). */
export const BUCKETS = {
  keys: { history: 1, ttl: 0 },
  teams: { history: 1, ttl: 0 },
  // Webhook records, address lists and team lists (layout: src/webhooks/store/kvKeys.ts).
  webhooks: { history: 5, ttl: 0 },
  // address -> webhook index the notifier reads; entries are revision-ordered, one value each suffices.
  webhook_addresses: { history: 1, ttl: 0 },
  usage: { history: 1, ttl: 0 },
  // Deployment-wide secrets generated on first start (e.g. the key that signs paging cursors).
  settings: { history: 1, ttl: 0 },
  // Role heartbeats: an instance that stops beating disappears after 15 s.
  presence: { history: 1, ttl: 15_000 },
  // Each chain follower's progress (head, processed, lag, events/s), refreshed every second.
  ingest_status: { history: 1, ttl: 0 },
} as const;

export type BucketName = keyof typeof BUCKETS;

const ensureStream = (jsm: JetStreamManager, config: (typeof STREAMS)[number]) =>
  Effect.tryPromise({
    try: async () => {
      try {
        await jsm.streams.info(config.name);
        await jsm.streams.update(config.name, config);
      } catch (error) {
        if (!(error instanceof Error) || !/not found/i.test(error.message)) throw error;
        await jsm.streams.add(config);
      }
    },
    catch: (cause) => new JetStreamSetupError({ name: `stream ${config.name}`, cause }),
  });

/** Creates the streams (or brings their configuration up to date). Safe to run on every start. */
export const ensureStreams = (nc: NatsConnection) =>
  Effect.gen(function* () {
    const jsm = yield* Effect.tryPromise({
      try: () => jetstreamManager(nc),
      catch: (cause) => new JetStreamSetupError({ name: "JetStream API", cause }),
    });
    for (const stream of STREAMS) yield* ensureStream(jsm, stream);
  });

/** Opens (creating if needed) one KV bucket. */
export const openBucket = (nc: NatsConnection, name: BucketName): Effect.Effect<KV, JetStreamSetupError> =>
  Effect.tryPromise({
    try: () => new Kvm(nc).create(name, BUCKETS[name]),
    catch: (cause) => new JetStreamSetupError({ name: `bucket ${name}`, cause }),
  });
