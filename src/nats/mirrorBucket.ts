import type { KV, KvWatchEntry } from "@nats-io/kv";
import { Deferred, Effect, Either, Schema, type Scope, Stream } from "effect";

/** One mirrored value, with its key (the filter's prefix removed) and when the broker stored it. */
export interface MirroredEntry<A> {
  readonly key: string;
  readonly value: A;
  readonly created: Date;
  /** The KV revision (stream sequence) of the value. */
  readonly revision: number;
}

/** A bucket's keys as a live in-memory map, kept current by a watch. */
export interface BucketMirror<A> {
  /** The live value under `key` (without the filter's prefix), or `undefined` when absent or deleted. */
  readonly get: (key: string) => A | undefined;
  /** Every live value. */
  readonly values: () => ReadonlyArray<A>;
  /** Every live value with its key and store time. */
  readonly entries: () => ReadonlyArray<MirroredEntry<A>>;
  /**
   * Completes once the values the bucket held when the mirror started are applied (at once when
   * there were none, also when the bucket held only deletions); completes at once from then on.
   */
  readonly ready: Effect.Effect<void>;
}

/** What to mirror. */
export interface MirrorOptions<A> {
  /** The keys: `>` for the whole bucket, or `<prefix>.>`, whose prefix the mirror's keys drop. */
  readonly key: ">" | `${string}.>`;
  /** The stored text to a value; a value that does not decode counts as absent (and is logged). */
  readonly decode: Schema.Schema<A, string>;
}

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
 * Mirrors the bucket's keys matching `options.key` into a map for the life of the scope, decoding
 * each value with `options.decode`. Puts set, deletes and purges remove.
 *
 * Readiness: the watch delivers the last value of every key first, and the entry after which
 * nothing is pending (`delta` 0) ends that initial read, whether it is a value or a deletion. When
 * the filter has no live key, possibly nothing is delivered at all, so a `keys` probe that finds
 * none makes the mirror ready as well (an empty map is then the bucket's state). The library's
 * `isUpdate` flag is not used: it already marks the last initial entry as an update.
 */
export const mirrorBucket = <A>(
  kv: KV,
  options: MirrorOptions<A>,
): Effect.Effect<BucketMirror<A>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const prefix = options.key.slice(0, -1);
    const decode = Schema.decodeUnknownEither(options.decode);
    const entries = new Map<string, MirroredEntry<A>>();
    const ready = yield* Deferred.make<void>();

    const apply = (entry: KvWatchEntry) =>
      Effect.suspend(() => {
        const key = entry.key.slice(prefix.length);
        if (entry.operation !== "PUT") {
          entries.delete(key);
          return Effect.void;
        }
        const decoded = decode(entry.string());
        if (Either.isRight(decoded)) {
          entries.set(key, { key, value: decoded.right, created: entry.created, revision: entry.revision });
          return Effect.void;
        }
        entries.delete(key);
        return Effect.logWarning(
          `ignoring an undecodable value of ${entry.bucket}/${entry.key}: ${decoded.left.message}`,
        );
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
        Effect.flatMap((found) => (found ? Effect.void : Deferred.succeed(ready, undefined))),
        Effect.catchAll((error) => Effect.logWarning(`cannot list the keys of ${options.key}`, error)),
      ),
    );

    return {
      get: (key: string) => entries.get(key)?.value,
      values: () => Array.from(entries.values(), (entry) => entry.value),
      entries: () => [...entries.values()],
      ready: Deferred.await(ready),
    };
  });
