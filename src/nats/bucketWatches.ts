import { DeliverPolicy } from "@nats-io/jetstream";
import { Bucket, type KV, type KvWatchEntry, KvWatchInclude } from "@nats-io/kv";
import { PULL_EXPIRES_MS } from "./pullOptions.js";

/** The entries of a watch, to be stopped when the follower's scope closes. */
export interface Watch {
  readonly entries: AsyncIterable<KvWatchEntry>;
  readonly stop: () => void;
  /** True when the watch is known to start with nothing to deliver (no probe needed then). */
  readonly empty: boolean | undefined;
}

/**
 * Messages a pull from the whole stream asks for at a time: the broker never has more than this in
 * flight to the follower, however large the bucket.
 */
const PULL_BATCH = 1_000;

/**
 * The whole stream of a bucket that keeps one value per key, from its first message: each key's
 * last entry (a value or a deletion) in stream order, then every change. An ordered consumer with
 * no filter, so its creation is instant at any size, and a pull one: a push consumer over 1M keys
 * had the broker send 33 MB ahead of a loaded reader and drop it as a slow consumer (10 s write
 * deadline), over and over.
 */
const watchWholeStream = async (bucket: Bucket): Promise<Watch> => {
  const consumer = await bucket.js.consumers.get(bucket.stream, { deliver_policy: DeliverPolicy.All });
  const { num_pending } = await consumer.info(true);
  const messages = await consumer.consume({ max_messages: PULL_BATCH, expires: PULL_EXPIRES_MS });
  return {
    entries: (async function* () {
      for await (const message of messages) yield bucket.jmToWatchEntry(message, false);
    })(),
    stop: () => messages.stop(),
    empty: num_pending === 0,
  };
};

/**
 * Each matching key's last entry (a value or a deletion) in stream order, then every change, read
 * by an ordered pull consumer that asks for `batch` messages at a time. For values of megabytes
 * (whole webhook address lists): the KV library's watch is a push consumer, and the client answers
 * its flow control as messages arrive, not as they are read, so a reader slower than the network
 * (one that applies each list as it comes) could have every list of the bucket queued in its memory
 * at once. Counted in messages, not bytes: nats-server 2.9 skips a message larger than what is left
 * of a pull's `max_bytes` on a consumer without acks, and two lists of ten were never shown. Its
 * filter makes the broker walk the bucket's keys when the consumer is made (see below): fine over
 * a few keys per webhook, not over one per address.
 */
const watchLastOfEach = async (bucket: Bucket, key: string, batch: number): Promise<Watch> => {
  const consumer = await bucket.js.consumers.get(bucket.stream, {
    filter_subjects: `${bucket.prefix}.${key}`,
    deliver_policy: DeliverPolicy.LastPerSubject,
  });
  const { num_pending } = await consumer.info(true);
  const messages = await consumer.consume({ max_messages: batch, expires: PULL_EXPIRES_MS });
  return {
    entries: (async function* () {
      for await (const message of messages) yield bucket.jmToWatchEntry(message, false);
    })(),
    stop: () => messages.stop(),
    empty: num_pending === 0,
  };
};

/**
 * A watch of `key` that replays the last entry of every key, deletions included, then every
 * change: the whole stream when the filter is the whole bucket and the bucket keeps one value per
 * key; a pull of each key's last entry, `pullBatch` messages at a time, when that is given; the
 * KV library's watch (deliver-last-per-subject) otherwise.
 *
 * Why: a KV watch's consumer filters on `$KV.<bucket>.>`, and nats-server 2.9 then counts what it
 * has to deliver by walking every key, at creation and again for the consumer's info. Over a bucket
 * of 1M keys (the address index of earlier versions) that took 17-29 s (deliver-all or
 * last-per-subject, load 13-15), past the JetStream API's 5 s timeout, so the follower never
 * started. Without a filter the same consumer is created at once, and with one value per key the
 * stream from its start holds exactly the entries a last-per-subject watch delivers, in the same
 * order.
 */
export const watchReplaying = async (kv: KV, key: string, pullBatch?: number): Promise<Watch> => {
  if (key === ">" && kv instanceof Bucket && (await kv.status()).history === 1) return watchWholeStream(kv);
  if (pullBatch !== undefined && kv instanceof Bucket) return watchLastOfEach(kv, key, pullBatch);
  const watch = await kv.watch({ key });
  return { entries: watch, stop: () => watch.stop(), empty: undefined };
};

/** A watch of `key` that shows only the changes made after it began. */
export const watchUpdates = async (kv: KV, key: string): Promise<Watch> => {
  const watch = await kv.watch({ key, include: KvWatchInclude.UpdatesOnly });
  return { entries: watch, stop: () => watch.stop(), empty: undefined };
};

/** Whether the filter has any live key now, read through a short-lived `keys` consumer. */
export const anyLiveKey = (kv: KV, filter: string) => async () => {
  const keys = await kv.keys(filter);
  for await (const _ of keys) {
    keys.stop();
    return true;
  }
  return false;
};

/** Every key matching `filter`, through the KV library's `keys` consumer. */
export const listKeysOf = (kv: KV) => async (filter: string) => {
  const found: Array<string> = [];
  for await (const key of await kv.keys(filter)) found.push(key);
  return found;
};
