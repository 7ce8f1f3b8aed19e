import { DeliverPolicy } from "@nats-io/jetstream";
import { Bucket, type KV, type KvWatchEntry } from "@nats-io/kv";
import { Clock, Deferred, Effect, Either, Schema, type Scope, Stream } from "effect";
import { retrying } from "../runtime/retrying.js";
import { PULL_EXPIRES_MS } from "./pullOptions.js";
import { reopenAfterEnd } from "./reopenPause.js";
import { streamTail } from "./streamTail.js";
import { untilWatchFallsBehind, WatchProgress } from "./WatchProgress.js";

/** One live value, with its key (the filter's prefix removed) and when the broker stored it. */
export interface BucketValue<A> {
  readonly key: string;
  readonly value: A;
  readonly created: Date;
  /** The KV revision (stream sequence) of the value. */
  readonly revision: number;
}

/** Which keys to follow and how to read their values. */
export interface FollowOptions<A> {
  /** The keys: `>` for the whole bucket, or `<prefix>.>`, whose prefix the reported keys drop. */
  readonly key: ">" | `${string}.>`;
  /** The stored text to a value; a value that does not decode counts as absent (and is logged). */
  readonly decode: Schema.Schema<A, string>;
  /**
   * When set, every this many ms the stream's leader is asked for the first message of these keys
   * after the last one the watch showed; one still not shown at the next check means the watch
   * stalled without ending (WatchProgress.ts), and it is opened again, its values passed on again.
   * The new watch replays each key's last message, deletion and purge markers included, so the
   * follower ends exact, except for keys whose messages left the stream with no marker meanwhile
   * (a purge of the stream itself, or a bucket's max age). The user needs STREAM.MSG.GET on the
   * bucket's stream.
   */
  readonly stallCheckMs?: number;
}

/**
 * Called for each change in bucket order: the key (prefix removed) and its new value, or
 * `undefined` when the key was deleted or purged or its value does not decode.
 */
export type OnChange<A> = (key: string, value: BucketValue<A> | undefined) => void;

/** Whether the filter has any live key now, read through a short-lived `keys` consumer. */
const anyLiveKey = (kv: KV, filter: string) => async () => {
  const keys = await kv.keys(filter);
  for await (const _ of keys) {
    keys.stop();
    return true;
  }
  return false;
};

/** The entries of a watch, to be stopped when the follower's scope closes. */
interface Watch {
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
 * The watch for `options.key`: the whole stream when the filter is the whole bucket and the bucket
 * keeps one value per key; the KV library's watch (deliver-last-per-subject) otherwise.
 *
 * Why: a KV watch's consumer filters on `$KV.<bucket>.>`, and nats-server 2.9 then counts what it
 * has to deliver by walking every key, at creation and again for the consumer's info. Over a bucket
 * of 1M keys (the notifier's address index) that took 17-29 s (deliver-all or last-per-subject,
 * load 13-15), past the JetStream API's 5 s timeout, so the follower never started. Without a
 * filter the same consumer is created at once, and with one value per key the stream from its
 * start holds exactly the entries a last-per-subject watch delivers, in the same order.
 */
const openWatch = async (kv: KV, key: string): Promise<Watch> => {
  if (key === ">" && kv instanceof Bucket && (await kv.status()).history === 1) return watchWholeStream(kv);
  const watch = await kv.watch({ key });
  return { entries: watch, stop: () => watch.stop(), empty: undefined };
};

/**
 * Follows the bucket's keys matching `options.key` for the life of the scope: the last value of
 * every key first, then each change, all decoded with `options.decode` and passed to `onChange`.
 * Returns an effect that completes once the values held at the start have been passed on.
 *
 * Readiness: the entry after which nothing is pending (`delta` 0) ends the initial read, whether
 * it is a value or a deletion. When the filter has no live key, the watch may deliver nothing at
 * all, so a watch that starts with nothing pending, or else a `keys` probe that finds no live key,
 * also makes it ready (nothing to pass on is then the bucket's state). The library's `isUpdate` flag is not used: it already marks the last initial
 * entry as an update, so a check for "not an update and nothing pending" never holds.
 */
export const followBucket = <A>(
  kv: KV,
  options: FollowOptions<A>,
  onChange: OnChange<A>,
): Effect.Effect<Effect.Effect<void>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const prefix = options.key.slice(0, -1);
    const decode = Schema.decodeUnknownEither(options.decode);
    const ready = yield* Deferred.make<void>();

    const apply = (entry: KvWatchEntry) =>
      Effect.suspend(() => {
        const key = entry.key.slice(prefix.length);
        if (entry.operation !== "PUT") return Effect.sync(() => onChange(key, undefined));
        const decoded = decode(entry.string());
        if (Either.isLeft(decoded))
          return Effect.sync(() => onChange(key, undefined)).pipe(
            Effect.zipRight(
              Effect.logWarning(
                `ignoring an undecodable value of ${entry.bucket}/${entry.key}: ${decoded.left.message}`,
              ),
            ),
          );
        const value = { key, value: decoded.right, created: entry.created, revision: entry.revision };
        return Effect.sync(() => onChange(key, value));
      }).pipe(Effect.zipRight(entry.delta === 0 ? Deferred.succeed(ready, undefined) : Effect.void));

    const check =
      options.stallCheckMs !== undefined && kv instanceof Bucket
        ? { tail: streamTail(kv.jsm, kv.stream, `${kv.prefix}.`), everyMs: options.stallCheckMs }
        : undefined;
    /** Watches that ended on their own in a row, each soon after it was opened. */
    let endsInARow = 0;
    /**
     * Passes on what `watch` shows until the scope closes, the watch ends, or (with a tail to check)
     * the watch stalls. A watch can end on its own: the client library stops an ordered consumer
     * for good on some server replies (a bad request, a consumer it could not re-create), and a
     * follower waiting on it would then miss every later change without a word.
     */
    const follow = (watch: Watch) =>
      Effect.gen(function* () {
        const openedAt = yield* Clock.currentTimeMillis;
        // Stopped even if the scope closes before the reader below is started.
        yield* Effect.addFinalizer(() => Effect.sync(() => watch.stop()));
        // Read once the watch exists: every later message of these keys is the watch's to show.
        const progress =
          check === undefined
            ? undefined
            : new WatchProgress(yield* retrying(`reading where ${options.key} ends`, check.tail.lastSeq));
        const ended = yield* Deferred.make<void>();
        yield* Effect.forkScoped(
          Stream.runForEach(
            Stream.fromAsyncIterable(watch.entries, (error) => error),
            (entry) => {
              progress?.showed(entry.revision);
              return apply(entry);
            },
          ).pipe(
            Effect.catchAll((error) => Effect.logWarning(`the watch of ${options.key} failed`, error)),
            Effect.zipRight(Deferred.succeed(ended, undefined)),
          ),
        );
        // Added after the fork so that it runs first on close: the reader's pending `next` then ends.
        yield* Effect.addFinalizer(() => Effect.sync(() => watch.stop()));
        const whenEnded = Effect.gen(function* () {
          yield* Deferred.await(ended);
          const { endsInARow: ends, pauseMs } = reopenAfterEnd(
            endsInARow,
            (yield* Clock.currentTimeMillis) - openedAt,
          );
          endsInARow = ends;
          yield* Effect.logWarning(`the watch of ${options.key} ended; watching again in ${pauseMs} ms`);
          yield* Effect.sleep(pauseMs);
        });
        if (check === undefined || progress === undefined) return yield* whenEnded;
        const whenBehind = untilWatchFallsBehind(progress, check.tail, options.key, check.everyMs).pipe(
          Effect.flatMap((unshown) =>
            Effect.logWarning(
              `the watch of ${options.key} has not shown message ${unshown} of its stream for ${check.everyMs} ms; watching again`,
            ),
          ),
        );
        yield* Effect.raceFirst(whenEnded, whenBehind);
      });

    // Watch first, then probe: a key written in between is delivered by the watch.
    const watch = yield* retrying(`watching ${options.key}`, () => openWatch(kv, options.key));
    yield* Effect.addFinalizer(() => Effect.sync(() => watch.stop()));
    yield* Effect.forkScoped(
      Effect.zipRight(
        Effect.scoped(follow(watch)),
        Effect.forever(
          Effect.scoped(
            Effect.flatMap(
              retrying(`watching ${options.key}`, () => openWatch(kv, options.key)),
              follow,
            ),
          ),
        ),
      ),
    );
    if (watch.empty === true) yield* Deferred.succeed(ready, undefined);
    else if (watch.empty === undefined)
      yield* Effect.forkScoped(
        retrying(`listing the keys of ${options.key}`, anyLiveKey(kv, options.key)).pipe(
          Effect.flatMap((found) => (found ? Effect.void : Deferred.succeed(ready, undefined))),
        ),
      );
    return Deferred.await(ready);
  });
