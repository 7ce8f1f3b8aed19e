import {
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamManager,
  jetstreamManager,
  type StreamConfig,
  type StreamInfo,
} from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import { type ObjectStore, Objm } from "@nats-io/obj";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect, Either } from "effect";
import { JetStreamSetupError } from "./NatsError.js";

const DAY_NANOS = 24 * 60 * 60 * 1_000_000_000;

/** Streams of the architecture, created or updated by provisioning (provisionJetStream.ts). */
export const STREAMS: ReadonlyArray<
  Pick<StreamConfig, "name" | "subjects" | "max_age" | "duplicate_window"> & {
    /** Bounded by bytes too (ProvisionOptions.chainEventsMaxBytes), dropping the oldest past it. */
    readonly boundedByBytes?: true;
  }
> = [
  // Blocks and reorgs; consumers keep their own checkpoints, a week covers any restart. A Base-sized
  // chain makes 13 GB of them a day (docs/benchmarks.md, chain-scale), so the stream is bounded by
  // bytes as well: a full JetStream store would refuse every publish and stop ingest.
  {
    name: "CHAIN_EVENTS",
    subjects: ["chain.>"],
    max_age: 7 * DAY_NANOS,
    duplicate_window: 120_000_000_000,
    boundedByBytes: true,
  },
  // Compute-unit records; aggregates live in the `usage` bucket, so the raw records need only outlive a month.
  { name: "USAGE", subjects: ["usage.>"], max_age: 35 * DAY_NANOS, duplicate_window: 120_000_000_000 },
];

/** KV buckets of the architecture; `ttl` in ms (0 keeps values forever). */
export const BUCKETS = {
  keys: { history: 1, ttl: 0 },
  teams: { history: 1, ttl: 0 },
  // Webhook records, address lists and team lists (layout: src/webhooks/store/kvKeys.ts). One value
  // a key: a list of 100,000 addresses is 4.5 MB, and older values are never read (five of each
  // made 10M watched addresses cost 2.25 GB of store rather than 450 MB).
  webhooks: { history: 1, ttl: 0 },
  usage: { history: 1, ttl: 0 },
  // Deployment-wide secrets generated on first start (e.g. the key that signs paging cursors).
  settings: { history: 1, ttl: 0 },
  // Role heartbeats: an instance that stops beating disappears after 15 s.
  presence: { history: 1, ttl: 15_000 },
  // Each chain follower's progress (head, processed, lag, events/s), refreshed every second.
  ingest_status: { history: 1, ttl: 0 },
  // One lease per chain: which ingest process follows it, and where it stands (src/ingest/ChainLease.ts).
  // No TTL: the checkpoint in it must outlive its holder; a dead holder is recognised by silence.
  chain_leases: { history: 1, ttl: 0 },
  // The webhook delivery outbox and its partitions' leases (layout: src/webhooks/outbox/outboxBucketKeys.ts).
  webhook_outbox: { history: 1, ttl: 0 },
  // What each recent block produced for each webhook, per chain (src/webhooks/notifier/kvBlockRecords.ts):
  // shared, so whichever API process plans a later block releases or retracts an earlier one's events.
  webhook_blocks: { history: 1, ttl: 0 },
} as const;

export type BucketName = keyof typeof BUCKETS;

/**
 * Object stores of the architecture. `index_snapshots`: the latest snapshot of an API worker's
 * index (src/indexer/snapshot/), one object replaced in place, so the store holds about one
 * snapshot's bytes (two while a new one is written).
 */
export const OBJECT_STORES = ["index_snapshots"] as const;
export type ObjectStoreName = (typeof OBJECT_STORES)[number];

/** The stream behind an object store. */
export const objectStoreStream = (name: ObjectStoreName): string => `OBJ_${name}`;

/**
 * Streams of earlier versions that nothing reads or writes any more; provisioning deletes them.
 * `KV_webhook_addresses`: one entry per (address, webhook), which the notifier loaded one message
 * each (27-30 s for 1M); it now reads the webhooks' address lists themselves, which the index
 * only repeated.
 */
export const RETIRED_STREAMS = ["KV_webhook_addresses"] as const;

/** The stream behind a KV bucket. */
export const bucketStream = (name: BucketName): string => `KV_${name}`;

/** Whether a JetStream call failed because the stream does not exist. */
export const isStreamNotFound = (error: unknown): boolean =>
  error instanceof JetStreamApiError
    ? error.code === JetStreamApiCodes.StreamNotFound
    : error instanceof Error && /stream not found/i.test(error.message);

/**
 * Whether a JetStream call failed only because the cluster is not ready: no
 * meta leader yet (nodes still starting, or one just lost), the stream's
 * leader being elected, or no server answering in time. Such calls succeed
 * when tried again a little later.
 */
export const isClusterNotReady = (error: unknown): boolean =>
  error instanceof Error &&
  ((error instanceof JetStreamApiError && (error.code === 10008 || error.status === 503)) ||
    /temporarily unavailable|no responders|timeout|TIMEOUT|not current|leader/i.test(error.message));

/** The JetStream management API of a connection (asks the server's `$JS.API.INFO` once). */
export const managerOf = (nc: NatsConnection): Effect.Effect<JetStreamManager, JetStreamSetupError> =>
  Effect.tryPromise({
    try: () => jetstreamManager(nc),
    catch: (cause) => new JetStreamSetupError({ name: "JetStream API", cause }),
  });

/** Seconds between looks for a stream that is not provisioned yet, and looks between two log lines. */
const WAIT = "1 second";
const LOG_EVERY = 30;

/**
 * The stream's info once it exists. Workers never create streams (only the
 * `provision` user may), so a missing one is waited for, saying so in the log.
 */
export const awaitStream = (
  jsm: JetStreamManager,
  stream: string,
): Effect.Effect<StreamInfo, JetStreamSetupError> =>
  Effect.gen(function* () {
    for (let attempt = 0; ; attempt++) {
      const info = yield* Effect.either(Effect.tryPromise(() => jsm.streams.info(stream)));
      if (Either.isRight(info)) return info.right;
      const notReady = isClusterNotReady(info.left.error);
      if (!isStreamNotFound(info.left.error) && !notReady)
        return yield* new JetStreamSetupError({ name: `stream ${stream}`, cause: info.left.error });
      if (notReady) {
        if (attempt % LOG_EVERY === 0)
          yield* Effect.logWarning(`JetStream is not ready yet (${String(info.left.error)}): waiting`);
      } else if (attempt % LOG_EVERY === 0)
        yield* Effect.logWarning(
          `JetStream stream ${stream} does not exist yet: waiting for it to be provisioned (\`npm run provision\` as the NATS user provision; see docs/operations.md)`,
        );
      yield* Effect.sleep(WAIT);
    }
  });

/** Waits until every stream of the architecture exists. */
export const awaitStreams = (nc: NatsConnection) =>
  Effect.flatMap(managerOf(nc), (jsm) => Effect.forEach(STREAMS, (stream) => awaitStream(jsm, stream.name)));

/**
 * Opens an existing KV bucket, waiting until it is provisioned. Binds without
 * creating (workers may not create streams), with direct gets when the bucket
 * allows them.
 */
export const openBucket = (nc: NatsConnection, name: BucketName): Effect.Effect<KV, JetStreamSetupError> =>
  Effect.gen(function* () {
    const info = yield* awaitStream(yield* managerOf(nc), bucketStream(name));
    return yield* Effect.tryPromise({
      try: () => new Kvm(nc).open(name, { allow_direct: info.config.allow_direct === true }),
      catch: (cause) => new JetStreamSetupError({ name: `bucket ${name}`, cause }),
    });
  });

/** Opens an existing object store, waiting until it is provisioned (workers may not create streams). */
export const openObjectStore = (
  nc: NatsConnection,
  name: ObjectStoreName,
): Effect.Effect<ObjectStore, JetStreamSetupError> =>
  Effect.gen(function* () {
    yield* awaitStream(yield* managerOf(nc), objectStoreStream(name));
    return yield* Effect.tryPromise({
      try: () => new Objm(nc).open(name, false),
      catch: (cause) => new JetStreamSetupError({ name: `object store ${name}`, cause }),
    });
  });
