import type { KV, KvWatchEntry } from "@nats-io/kv";
import { Deferred, Effect, Either, Schedule, Schema, type Scope, Stream } from "effect";

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
}

/**
 * Called for each change in bucket order: the key (prefix removed) and its new value, or
 * `undefined` when the key was deleted or purged or its value does not decode.
 */
export type OnChange<A> = (key: string, value: BucketValue<A> | undefined) => void;

/** A failed probe is tried again after 0.2 s, doubling up to every 10 s: readiness may depend on it. */
const PROBE_RETRY = Schedule.union(Schedule.exponential("200 millis"), Schedule.spaced("10 seconds"));

/** Whether the filter has any live key now, read through a short-lived `keys` consumer. */
const anyLiveKey = (kv: KV, filter: string) =>
  Effect.tryPromise(async () => {
    const keys = await kv.keys(filter);
    for await (const _ of keys) {
      keys.stop();
      return true;
    }
    return false;
  });

/**
 * Follows the bucket's keys matching `options.key` for the life of the scope: the last value of
 * every key first, then each change, all decoded with `options.decode` and passed to `onChange`.
 * Returns an effect that completes once the values held at the start have been passed on.
 *
 * Readiness: the entry after which nothing is pending (`delta` 0) ends the initial read, whether
 * it is a value or a deletion. When the filter has no live key, the watch may deliver nothing at
 * all, so a `keys` probe that finds none also makes it ready (nothing to pass on is then the
 * bucket's state). The library's `isUpdate` flag is not used: it already marks the last initial
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

    // Watch first, then probe: a key written in between is delivered by the watch.
    const watch = yield* Effect.promise(() => kv.watch({ key: options.key }));
    yield* Effect.forkScoped(
      Stream.runForEach(
        Stream.fromAsyncIterable(watch, (error) => error),
        apply,
      ).pipe(Effect.catchAll((error) => Effect.logWarning(`the watch of ${options.key} failed`, error))),
    );
    // Added after the fork so that it runs first on close: the reader's pending `next` then ends.
    yield* Effect.addFinalizer(() => Effect.sync(() => watch.stop()));
    yield* Effect.forkScoped(
      anyLiveKey(kv, options.key).pipe(
        Effect.tapError((error) =>
          Effect.logWarning(`cannot list the keys of ${options.key}; retrying`, error),
        ),
        Effect.retry(PROBE_RETRY),
        Effect.flatMap((found) => (found ? Effect.void : Deferred.succeed(ready, undefined))),
      ),
    );
    return Deferred.await(ready);
  });
