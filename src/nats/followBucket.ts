import { Bucket, type KV, type KvEntry } from "@nats-io/kv";
import { Clock, Deferred, Effect, type Scope, Stream } from "effect";
import { retrying } from "../runtime/retrying.js";
import { anyLiveKey, listKeysOf, type Watch, watchReplaying, watchUpdates } from "./bucketWatches.js";
import { leaderReads } from "./leaderReads.js";
import { reopenAfterEnd } from "./reopenPause.js";
import { type StreamTail, streamTail } from "./streamTail.js";
import { untilWatchFallsBehind, WatchProgress } from "./WatchProgress.js";

/**
 * After a new watch of a listing follower has read what is stored: what the follower's owner holds
 * that the listing did not name may have been deleted while no watch showed it. Each such key held
 * at a revision no newer than where the new watch began is read from the stream's leader (a
 * listing can end early without an error, its consumer lost with a server, so absence alone proves
 * nothing): its entry goes to `onEntry`, and a key with no message left at all to `vanished`. A key
 * held at a later revision came from a write after that point and stays.
 */
export interface Reconcile {
  /** The full keys the owner holds, each with the revision it holds. */
  readonly held: () => Iterable<readonly [key: string, revision: number]>;
  /** A held key whose messages left the stream without a marker (a purge of its subject). */
  readonly vanished: (key: string) => void;
}

/** How each new watch learns what the bucket holds. */
export type StoredRead =
  /**
   * The watch replays each key's last entry, deletion and purge markers included, so the follower
   * ends exact, except for keys whose messages left the stream with no marker meanwhile (a purge
   * of the stream itself, or a bucket's max age).
   */
  | { readonly by: "replay" }
  /**
   * The watch shows only later changes, and the live keys are then listed and read from the
   * stream's leader: for buckets whose deletion markers would otherwise be replayed at every start
   * (each deleted webhook's marker would purge its outbox keys again).
   */
  | {
      readonly by: "listing";
      /** Lists the full keys matching a filter (the KV library's `keys` when absent). */
      readonly listKeys?: (filter: string) => Promise<ReadonlyArray<string>>;
      /** Settles what the owner holds after every watch but the first (see Reconcile). */
      readonly reconcile?: Reconcile;
    };

/** Which keys to follow, how, and how closely. */
export interface FollowOptions {
  /** The keys: `>` for the whole bucket, or `<prefix>.>`. */
  readonly key: ">" | `${string}.>`;
  /** How each watch reads what is stored; `{ by: "replay" }` when absent. */
  readonly stored?: StoredRead;
  /**
   * When set, every this many ms the stream's leader is asked for the first message of these keys
   * after the last one the watch showed; one still not shown at the next check means the watch
   * stalled without ending (WatchProgress.ts), and it is opened again and the stored state read
   * again. The user needs STREAM.INFO and STREAM.MSG.GET on the bucket's stream.
   */
  readonly stallCheckMs?: number;
  /** Where the bucket's stream ends; derived from the bucket when absent (tests pass their own). */
  readonly tail?: StreamTail;
  /**
   * When replaying: the watch is a pull asking for this many messages at a time, so no more values
   * than that are sent ahead of the follower; for values of megabytes (bucketWatches.ts,
   * watchLastOfEach). The user then needs CONSUMER.MSG.NEXT on the bucket's stream. Unbounded (the
   * KV library's push watch) when absent.
   */
  readonly pullBatch?: number;
}

/**
 * Called with each entry in the order it arrives: a value, or a deletion or purge marker. What it
 * answers (an effect: a log line, say) runs before the next entry is passed on.
 */
export type OnEntry = (entry: KvEntry) => Effect.Effect<void> | void;

/** Reads at once from the stream's leader while listing. */
const READS_IN_FLIGHT = 64;

/**
 * Follows the bucket's keys matching `options.key` for the life of the scope, passing every entry
 * to `onEntry`: what is stored first, then each change. A watch can end on its own (the client
 * library stops an ordered consumer for good on some server replies) or, with a stall check, stall
 * without ending; either way a new one is opened and the stored state read again, so a follower
 * never misses later changes without a word. Entries can repeat and, between a watch and a
 * listing, arrive out of revision order: `onEntry` keeps the newest revision of each key.
 * Returns an effect that completes once the state held at the start has been passed on.
 *
 * Readiness when replaying: the entry after which nothing is pending (`delta` 0) ends the initial
 * read, whether it is a value or a deletion. When the filter has no live key, the watch may deliver
 * nothing at all, so a watch that starts with nothing pending, or else a `keys` probe that finds no
 * live key, also makes it ready. The library's `isUpdate` flag is not used: it already marks the
 * last initial entry as an update. When listing: once the first listing has been read.
 *
 * Long as the one follower every bucket watch in the service goes through: opening, reading the
 * stored state both ways, reconciling, and the stall check share one watch's state.
 */
export const followBucket = (
  kv: KV,
  options: FollowOptions,
  onEntry: OnEntry,
): Effect.Effect<Effect.Effect<void>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { key } = options;
    const stored = options.stored ?? { by: "replay" };
    const ready = yield* Deferred.make<void>();
    const isReady = Deferred.succeed(ready, undefined);
    const tail =
      options.tail ?? (kv instanceof Bucket ? streamTail(kv.jsm, kv.stream, `${kv.prefix}.`) : undefined);
    const check =
      options.stallCheckMs !== undefined && tail !== undefined
        ? { tail, everyMs: options.stallCheckMs }
        : undefined;
    const reconcile = stored.by === "listing" ? stored.reconcile : undefined;
    const leader = leaderReads(kv);
    const apply = (entry: KvEntry) =>
      Effect.suspend(() => {
        const after = onEntry(entry);
        return after === undefined ? Effect.void : after;
      }).pipe(
        // An entry its owner cannot take (a bug, or a value it cannot handle) is skipped and said:
        // a follower that died of it would leave its owner blind to every later change.
        Effect.catchAllCause((cause) =>
          Effect.logError(`the follower of ${key} skipped ${entry.key} at revision ${entry.revision}`, cause),
        ),
      );

    /** Reads every listed key from the stream's leader and passes it on; answers the keys listed. */
    const readStored = (listKeys: (filter: string) => Promise<ReadonlyArray<string>>) =>
      Effect.gen(function* () {
        const { keys, entries } = yield* retrying(`reading the stored ${key}`, async () => {
          const keys = await listKeys(key);
          const entries: Array<KvEntry> = [];
          for (let i = 0; i < keys.length; i += READS_IN_FLIGHT)
            for (const entry of await Promise.all(
              keys.slice(i, i + READS_IN_FLIGHT).map((k) => leader.get(k)),
            ))
              if (entry !== null) entries.push(entry);
          return { keys, entries };
        });
        yield* Effect.forEach(entries, apply, { discard: true });
        return new Set(keys);
      });

    const settleUnlisted = (settle: Reconcile, listed: ReadonlySet<string>, watchBeganAfter: number) =>
      Effect.forEach(
        [...settle.held()].filter(([held, revision]) => !listed.has(held) && revision <= watchBeganAfter),
        ([held]) =>
          Effect.tryPromise(() => leader.get(held)).pipe(
            Effect.flatMap((entry) =>
              entry === null ? Effect.sync(() => settle.vanished(held)) : apply(entry),
            ),
            // Unreadable now: kept; the next check or change settles it.
            Effect.ignore,
          ),
        { concurrency: 16, discard: true },
      );

    /** Watches that ended on their own in a row, each soon after it was opened. */
    let endsInARow = 0;

    /** A new watch, and where the stream ended once it existed (when a check or reconcile needs it). */
    const open = Effect.gen(function* () {
      const openedAt = yield* Clock.currentTimeMillis;
      const watch: Watch = yield* retrying(`watching ${key}`, () =>
        stored.by === "replay" ? watchReplaying(kv, key, options.pullBatch) : watchUpdates(kv, key),
      );
      // Stopped even if the scope closes before the reader is started.
      yield* Effect.addFinalizer(() => Effect.sync(() => watch.stop()));
      // Read once the watch exists: every later message of these keys is the watch's to show.
      const beganAfter =
        tail !== undefined && (check !== undefined || reconcile !== undefined)
          ? yield* retrying(`reading where ${key} ends`, tail.lastSeq)
          : undefined;
      return { openedAt, watch, beganAfter };
    });

    /**
     * One watch: its stored state read, followed until the watch ends or (with a tail to check)
     * stalls. The scope closing stops it.
     */
    const followOnce = (
      { openedAt, watch, beganAfter }: Effect.Effect.Success<typeof open>,
      first: boolean,
    ) =>
      Effect.gen(function* () {
        const progress =
          check === undefined || beganAfter === undefined ? undefined : new WatchProgress(beganAfter);
        const ended = yield* Deferred.make<void>();
        yield* Effect.forkScoped(
          Stream.runForEach(
            Stream.fromAsyncIterable(watch.entries, (error) => error),
            (entry) =>
              Effect.suspend(() => {
                progress?.showed(entry.revision);
                return apply(entry).pipe(
                  Effect.zipRight(stored.by === "replay" && entry.delta === 0 ? isReady : Effect.void),
                );
              }),
          ).pipe(
            Effect.catchAll((error) => Effect.logWarning(`the watch of ${key} failed`, error)),
            Effect.zipRight(Deferred.succeed(ended, undefined)),
          ),
        );
        // Added after the fork so that it runs first on close: the reader's pending `next` then ends.
        yield* Effect.addFinalizer(() => Effect.sync(() => watch.stop()));

        if (stored.by === "listing") {
          const listed = yield* readStored(stored.listKeys ?? listKeysOf(kv));
          if (!first && reconcile !== undefined && beganAfter !== undefined)
            yield* settleUnlisted(reconcile, listed, beganAfter);
          yield* isReady;
        } else if (watch.empty === true) yield* isReady;

        const whenEnded = Effect.gen(function* () {
          yield* Deferred.await(ended);
          const { endsInARow: ends, pauseMs } = reopenAfterEnd(
            endsInARow,
            (yield* Clock.currentTimeMillis) - openedAt,
          );
          endsInARow = ends;
          yield* Effect.logWarning(`the watch of ${key} ended; watching again in ${pauseMs} ms`);
          yield* Effect.sleep(pauseMs);
        });
        if (check === undefined || progress === undefined) return yield* whenEnded;
        const whenBehind = untilWatchFallsBehind(progress, check.tail, key, check.everyMs).pipe(
          Effect.flatMap((unshown) =>
            Effect.logWarning(
              `the watch of ${key} has not shown message ${unshown} of its stream for ${check.everyMs} ms; watching again`,
            ),
          ),
        );
        yield* Effect.raceFirst(whenEnded, whenBehind);
      });

    // The first watch exists before this returns: what is written from then on is the watch's to show.
    const first = yield* open;
    // A replay of keys none of which is live may deliver nothing at all: a probe of the live keys
    // then makes the follower ready. Forked here, not with the first watch, so that watch ending
    // soon cannot cut it short; and only where the watch cannot say it starts empty (a `keys`
    // consumer over the whole of a large bucket is what the whole-stream watch avoids).
    if (stored.by === "replay" && first.watch.empty === undefined)
      yield* Effect.forkScoped(
        retrying(`listing the keys of ${key}`, anyLiveKey(kv, key)).pipe(
          Effect.flatMap((found) => (found ? Effect.void : isReady)),
        ),
      );
    yield* Effect.forkScoped(
      Effect.zipRight(
        Effect.scoped(followOnce(first, true)),
        Effect.forever(Effect.scoped(Effect.flatMap(open, (next) => followOnce(next, false)))),
      ),
    );
    return Deferred.await(ready);
  });
