import type { JetStreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import {
  BUCKETS,
  type BucketName,
  bucketStream,
  isStreamNotFound,
  managerOf,
  STREAMS,
} from "./JetStreamSetup.js";
import { JetStreamSetupError } from "./NatsError.js";

/** What provisioning did to one stream or bucket. */
export type ProvisionOutcome = "created" | "updated" | "unchanged";

const infoOrUndefined = (jsm: JetStreamManager, stream: string) =>
  jsm.streams.info(stream).catch((error: unknown) => {
    if (isStreamNotFound(error)) return undefined;
    throw error;
  });

const ensureStream = (jsm: JetStreamManager, config: (typeof STREAMS)[number]) =>
  Effect.tryPromise({
    try: async (): Promise<ProvisionOutcome> => {
      const info = await infoOrUndefined(jsm, config.name);
      if (info === undefined) {
        await jsm.streams.add(config);
        return "created";
      }
      const same =
        info.config.max_age === config.max_age &&
        info.config.duplicate_window === config.duplicate_window &&
        JSON.stringify(info.config.subjects) === JSON.stringify(config.subjects);
      if (same) return "unchanged";
      await jsm.streams.update(config.name, config);
      return "updated";
    },
    catch: (cause) => new JetStreamSetupError({ name: `stream ${config.name}`, cause }),
  });

const ensureBucket = (nc: NatsConnection, jsm: JetStreamManager, name: BucketName) =>
  Effect.tryPromise({
    try: async (): Promise<ProvisionOutcome> => {
      const wanted = BUCKETS[name];
      const info = await infoOrUndefined(jsm, bucketStream(name));
      if (info === undefined) {
        await new Kvm(nc).create(name, wanted);
        return "created";
      }
      const maxAge = wanted.ttl * 1_000_000;
      if (info.config.max_msgs_per_subject === wanted.history && info.config.max_age === maxAge)
        return "unchanged";
      // The server refuses a duplicate window longer than the values live (a TTL given to a bucket later).
      const window =
        maxAge > 0 ? Math.min(info.config.duplicate_window, maxAge) : info.config.duplicate_window;
      await jsm.streams.update(info.config.name, {
        max_msgs_per_subject: wanted.history,
        max_age: maxAge,
        duplicate_window: window,
      });
      return "updated";
    },
    catch: (cause) => new JetStreamSetupError({ name: `bucket ${name}`, cause }),
  });

/**
 * Creates the streams and KV buckets of the architecture, or brings an existing
 * one's configuration up to date (never a second copy). Safe to run on every
 * start and from several processes at once. Needs the `provision` user, the
 * only one nats.conf lets create or change streams. Answers what it did to each.
 */
export const provisionJetStream = (nc: NatsConnection) =>
  Effect.gen(function* () {
    const jsm = yield* managerOf(nc);
    const outcomes: Array<{ readonly name: string; readonly outcome: ProvisionOutcome }> = [];
    for (const stream of STREAMS)
      outcomes.push({ name: `stream ${stream.name}`, outcome: yield* ensureStream(jsm, stream) });
    for (const bucket of Object.keys(BUCKETS) as ReadonlyArray<BucketName>)
      outcomes.push({ name: `bucket ${bucket}`, outcome: yield* ensureBucket(nc, jsm, bucket) });
    return outcomes;
  }).pipe(Effect.withSpan("provisionJetStream"));

/** One line saying what provisioning changed, for the log and the CLI. */
export const describeProvisioning = (
  outcomes: ReadonlyArray<{ readonly name: string; readonly outcome: ProvisionOutcome }>,
): string => {
  const of = (outcome: ProvisionOutcome) => outcomes.filter((o) => o.outcome === outcome).map((o) => o.name);
  const parts = [
    ...(of("created").length > 0 ? [`created ${of("created").join(", ")}`] : []),
    ...(of("updated").length > 0 ? [`updated ${of("updated").join(", ")}`] : []),
    `${of("unchanged").length} already up to date`,
  ];
  return `JetStream provisioned: ${parts.join("; ")}`;
};
