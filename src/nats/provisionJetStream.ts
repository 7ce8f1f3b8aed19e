import { JetStreamApiError, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { Objm, StorageType } from "@nats-io/obj";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect, Schedule } from "effect";
import {
  BUCKETS,
  type BucketName,
  bucketStream,
  isClusterNotReady,
  isStreamNotFound,
  managerOf,
  OBJECT_STORES,
  type ObjectStoreName,
  objectStoreStream,
  RETIRED_STREAMS,
  STREAMS,
} from "./JetStreamSetup.js";
import { JetStreamSetupError } from "./NatsError.js";

/** What provisioning did to one stream or bucket. */
export type ProvisionOutcome = "created" | "updated" | "unchanged" | "deleted";

const infoOrUndefined = (jsm: JetStreamManager, stream: string) =>
  jsm.streams.info(stream).catch((error: unknown) => {
    if (isStreamNotFound(error)) return undefined;
    throw error;
  });

export const GIB = 1024 ** 3;

/** How provisioning is asked to shape what it creates. */
export interface ProvisionOptions {
  /** Copies of every stream and bucket (JETSTREAM_REPLICAS): 1 on one server, 3 in a three-node cluster. */
  readonly replicas: number;
  /** Most bytes CHAIN_EVENTS keeps (CHAIN_EVENTS_MAX_GB); the oldest messages go first past it. */
  readonly chainEventsMaxBytes?: number;
}

/** CHAIN_EVENTS_MAX_GB's default. */
export const DEFAULT_CHAIN_EVENTS_MAX_BYTES = 6 * GIB;

const SINGLE: ProvisionOptions = { replicas: 1 };

/** The smallest byte bound provisioning falls back to (below it the store is too small to run on). */
const MIN_STREAM_BYTES = 64 * 1024 ** 2;

/** JetStream could not reserve a stream's `max_bytes` in its store (err_code 10047). */
const isInsufficientStorage = (error: unknown): boolean =>
  error instanceof JetStreamApiError
    ? error.code === 10047
    : error instanceof Error && /insufficient storage/i.test(error.message);

type StreamConfigIn = Omit<(typeof STREAMS)[number], "boundedByBytes"> & {
  readonly num_replicas: number;
  readonly max_bytes: number;
};

/**
 * Applies `config` with the largest `max_bytes` up to its own that the JetStream store can reserve:
 * the server reserves a stream's bound in its store (`max_file_store`) and refuses a bound beyond
 * what is left, so a store smaller than CHAIN_EVENTS_MAX_GB gets a halved bound rather than a
 * service that cannot start. Answers the bound applied.
 */
const applyFitted = async (
  config: StreamConfigIn,
  apply: (config: StreamConfigIn) => Promise<unknown>,
): Promise<number> => {
  let bytes = config.max_bytes;
  for (;;) {
    try {
      await apply({ ...config, max_bytes: bytes });
      return bytes;
    } catch (error) {
      if (bytes <= MIN_STREAM_BYTES || !isInsufficientStorage(error)) throw error;
      bytes = Math.max(MIN_STREAM_BYTES, Math.floor(bytes / 2));
    }
  }
};

const ensureStream = (jsm: JetStreamManager, stream: (typeof STREAMS)[number], options: ProvisionOptions) =>
  Effect.gen(function* () {
    const { boundedByBytes, ...base } = stream;
    const config: StreamConfigIn = {
      ...base,
      num_replicas: options.replicas,
      // Limits retention drops the oldest messages past max_bytes (discard "old", the default).
      max_bytes:
        boundedByBytes === true ? (options.chainEventsMaxBytes ?? DEFAULT_CHAIN_EVENTS_MAX_BYTES) : -1,
    };
    const { outcome, bytes } = yield* Effect.tryPromise({
      try: async (): Promise<{ outcome: ProvisionOutcome; bytes: number }> => {
        const info = await infoOrUndefined(jsm, config.name);
        if (info === undefined)
          return { outcome: "created", bytes: await applyFitted(config, (c) => jsm.streams.add(c)) };
        const sameWith = (maxBytes: number) =>
          info.config.max_age === config.max_age &&
          info.config.max_bytes === maxBytes &&
          info.config.duplicate_window === config.duplicate_window &&
          info.config.num_replicas === options.replicas &&
          JSON.stringify(info.config.subjects) === JSON.stringify(config.subjects);
        if (sameWith(config.max_bytes)) return { outcome: "unchanged", bytes: config.max_bytes };
        const bytes = await applyFitted(config, (c) => jsm.streams.update(c.name, c));
        return { outcome: sameWith(bytes) ? "unchanged" : "updated", bytes };
      },
      catch: (cause) => new JetStreamSetupError({ name: `stream ${stream.name}`, cause }),
    });
    if (bytes !== config.max_bytes)
      yield* Effect.logWarning(
        `stream ${stream.name} is bounded at ${(bytes / GIB).toFixed(2)} GiB, not ${(config.max_bytes / GIB).toFixed(2)}: the JetStream store cannot reserve more (raise its max_file_store, or lower CHAIN_EVENTS_MAX_GB)`,
      );
    return outcome;
  });

const ensureBucket = (nc: NatsConnection, jsm: JetStreamManager, name: BucketName, replicas: number) =>
  Effect.tryPromise({
    try: async (): Promise<ProvisionOutcome> => {
      const wanted = BUCKETS[name];
      const info = await infoOrUndefined(jsm, bucketStream(name));
      if (info === undefined) {
        await new Kvm(nc).create(name, { ...wanted, replicas });
        return "created";
      }
      const maxAge = wanted.ttl * 1_000_000;
      if (
        info.config.max_msgs_per_subject === wanted.history &&
        info.config.max_age === maxAge &&
        info.config.num_replicas === replicas
      )
        return "unchanged";
      // The server refuses a duplicate window longer than the values live (a TTL given to a bucket later).
      const window =
        maxAge > 0 ? Math.min(info.config.duplicate_window, maxAge) : info.config.duplicate_window;
      await jsm.streams.update(info.config.name, {
        max_msgs_per_subject: wanted.history,
        max_age: maxAge,
        duplicate_window: window,
        num_replicas: replicas,
      });
      return "updated";
    },
    catch: (cause) => new JetStreamSetupError({ name: `bucket ${name}`, cause }),
  });

const ensureObjectStore = (
  nc: NatsConnection,
  jsm: JetStreamManager,
  name: ObjectStoreName,
  replicas: number,
) =>
  Effect.tryPromise({
    try: async (): Promise<ProvisionOutcome> => {
      const info = await infoOrUndefined(jsm, objectStoreStream(name));
      if (info === undefined) {
        await new Objm(nc).create(name, { replicas, storage: StorageType.File });
        return "created";
      }
      if (info.config.num_replicas === replicas) return "unchanged";
      await jsm.streams.update(info.config.name, { num_replicas: replicas });
      return "updated";
    },
    catch: (cause) => new JetStreamSetupError({ name: `object store ${name}`, cause }),
  });

/** Deletes a stream of an earlier version (RETIRED_STREAMS) if it is still there; whether it was. */
const deleteRetired = (jsm: JetStreamManager, stream: string) =>
  Effect.tryPromise({
    try: async () => {
      if ((await infoOrUndefined(jsm, stream)) === undefined) return false;
      // Another process provisioning at the same time may have deleted it first.
      return jsm.streams.delete(stream).catch((error: unknown) => {
        if (isStreamNotFound(error)) return false;
        throw error;
      });
    },
    catch: (cause) => new JetStreamSetupError({ name: `retired stream ${stream}`, cause }),
  });

/**
 * Creates the streams, KV buckets and object stores of the architecture, or brings an existing
 * one's configuration up to date (never a second copy), including its number
 * of replicas: raising JETSTREAM_REPLICAS on a cluster copies the existing
 * streams to more servers. Deletes what earlier versions kept and nothing
 * reads any more (RETIRED_STREAMS). Safe to run on every start and from several
 * processes at once. Needs the `provision` user, the only one nats.conf lets
 * create or change streams. Answers what it did to each.
 */
export const provisionJetStream = (nc: NatsConnection, options: ProvisionOptions = SINGLE) =>
  Effect.gen(function* () {
    const jsm = yield* managerOf(nc);
    const outcomes: Array<{ readonly name: string; readonly outcome: ProvisionOutcome }> = [];
    for (const stream of STREAMS)
      outcomes.push({
        name: `stream ${stream.name}`,
        outcome: yield* ensureStream(jsm, stream, options),
      });
    for (const bucket of Object.keys(BUCKETS) as ReadonlyArray<BucketName>)
      outcomes.push({
        name: `bucket ${bucket}`,
        outcome: yield* ensureBucket(nc, jsm, bucket, options.replicas),
      });
    for (const store of OBJECT_STORES)
      outcomes.push({
        name: `object store ${store}`,
        outcome: yield* ensureObjectStore(nc, jsm, store, options.replicas),
      });
    for (const stream of RETIRED_STREAMS)
      if (yield* deleteRetired(jsm, stream)) outcomes.push({ name: `stream ${stream}`, outcome: "deleted" });
    return outcomes;
  }).pipe(Effect.withSpan("provisionJetStream"));

/**
 * A replicated stream that cannot be placed yet: right after a cluster starts, its meta leader
 * may know fewer servers than the replicas asked for until the others have joined. Past the
 * retries below it means more replicas than servers, and the error says so.
 */
const isPlacementPending = (error: unknown): boolean =>
  error instanceof Error && /no suitable peers/i.test(error.message);

/**
 * Provisions as soon as JetStream can take it: a cluster that has just started
 * (or just lost its meta leader) answers "temporarily unavailable", or cannot
 * place replicas on servers that have not joined yet, for a few seconds, so
 * such failures are tried again for up to a minute.
 */
export const provisionWhenReady = (nc: NatsConnection, options: ProvisionOptions = SINGLE) =>
  provisionJetStream(nc, options).pipe(
    Effect.retry({
      schedule: Schedule.spaced("500 millis"),
      times: 120,
      while: (error) => isClusterNotReady(error.cause) || isPlacementPending(error.cause),
    }),
  );

/** One line saying what provisioning changed, for the log and the CLI. */
export const describeProvisioning = (
  outcomes: ReadonlyArray<{ readonly name: string; readonly outcome: ProvisionOutcome }>,
): string => {
  const of = (outcome: ProvisionOutcome) => outcomes.filter((o) => o.outcome === outcome).map((o) => o.name);
  const parts = [
    ...(of("created").length > 0 ? [`created ${of("created").join(", ")}`] : []),
    ...(of("updated").length > 0 ? [`updated ${of("updated").join(", ")}`] : []),
    ...(of("deleted").length > 0 ? [`deleted ${of("deleted").join(", ")} (retired)`] : []),
    `${of("unchanged").length} already up to date`,
  ];
  return `JetStream provisioned: ${parts.join("; ")}`;
};
