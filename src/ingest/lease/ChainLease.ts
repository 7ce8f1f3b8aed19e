import { Clock, Data, Deferred, Effect, Either, type Scope } from "effect";
import type { Checkpoint } from "../CheckpointStore.js";
import type { LeaseRecord, LeaseStore, LeaseStoreError } from "./LeaseStore.js";
import { SilenceWatch } from "./SilenceWatch.js";

/** This process no longer holds the chain's lease: it must stop publishing at once. */
export class LeaseLost extends Data.TaggedError("LeaseLost")<{
  readonly key: string;
  readonly reason: string;
}> {
  override get message(): string {
    return `Lease ${this.key} lost: ${this.reason}`;
  }
}

/**
 * The lease period, in ms. The holder rewrites its record every quarter of
 * it and stops publishing when it has not managed to for half of it; a standby
 * takes over after a whole period without a change. So the old holder has
 * stopped before anyone else can start, as long as a write is acknowledged
 * within a quarter period.
 */
export interface LeaseTiming {
  readonly leaseMs: number;
}

/** A chain's lease while this process holds it. */
export interface HeldLease {
  /** Where the chain stood when the lease was taken: what the previous holder had published. */
  readonly checkpoint: Checkpoint | undefined;
  /** Fails if the lease may no longer be ours; checked before every publish. */
  readonly fence: Effect.Effect<void, LeaseLost>;
  /**
   * The fence's quick answer without running an effect, for a check made per message:
   * true when the lease is certainly ours at `now`; false means run `fence`, which decides (and records a loss).
   */
  readonly freshAt: (now: number) => boolean;
  /** Stores where the chain stands, after a publish was acknowledged (renewing the lease). */
  readonly save: (checkpoint: Checkpoint) => Effect.Effect<void, LeaseLost | LeaseStoreError>;
  /** Completes when the lease is lost (taken over, or not renewed in time). */
  readonly lost: Effect.Effect<LeaseLost>;
}

const record = (owner: string | null, now: number, checkpoint: Checkpoint | null): LeaseRecord => ({
  owner,
  renewed_at: new Date(now).toISOString(),
  checkpoint,
});

/**
 * Waits until this process (`owner`) holds the lease `key`, then keeps it
 * renewed until the scope closes, when it is handed back (owner `null`) so a
 * standby takes over at its next look instead of after a silent period. A lease
 * is free when it does not exist, was handed back, is already ours (a renewal
 * that timed out but went through), or its holder has been silent for a period.
 * Taking it is a revision-checked write: of two standbys only one wins.
 */
export const acquireLease = (
  store: LeaseStore,
  key: string,
  owner: string,
  timing: LeaseTiming,
  /**
   * Whether to take a lease nobody holds (never taken, or handed back). A silent holder's lease is
   * taken whatever this says: its work must go on now, and balancing can wait.
   */
  takeFree: () => boolean = () => true,
): Effect.Effect<HeldLease, never, Scope.Scope> =>
  Effect.gen(function* () {
    const watch = new SilenceWatch(timing.leaseMs);
    for (;;) {
      const now = yield* Clock.currentTimeMillis;
      const seen = yield* Effect.either(store.read(key));
      if (Either.isRight(seen)) {
        const entry = seen.right;
        const take =
          entry === undefined
            ? takeFree()
              ? store.create(key, record(owner, now, null))
              : undefined
            : (entry.record.owner === null && takeFree()) ||
                entry.record.owner === owner ||
                watch.silent(entry.revision, now)
              ? store.update(key, record(owner, now, entry.record.checkpoint), entry.revision)
              : undefined;
        if (take !== undefined) {
          const taken = yield* Effect.either(take);
          if (Either.isRight(taken))
            return yield* holdLease(store, key, owner, timing, {
              revision: taken.right,
              checkpoint: entry?.record.checkpoint ?? null,
              renewedAt: now,
            });
        }
      }
      yield* Effect.sleep(timing.leaseMs / 4);
    }
  });

interface LeaseState {
  revision: number;
  checkpoint: Checkpoint | null;
  /** When the last write that was acknowledged started, by this process's clock. */
  renewedAt: number;
}

const holdLease = (store: LeaseStore, key: string, owner: string, timing: LeaseTiming, state: LeaseState) =>
  Effect.gen(function* () {
    const lostSignal = yield* Deferred.make<LeaseLost>();
    /** Set before lostSignal completes, so freshAt never answers true once the lease is lost. */
    let lostSeen = false;
    const lock = yield* Effect.makeSemaphore(1);
    const lose = (reason: string) =>
      Effect.gen(function* () {
        lostSeen = true;
        const lost = new LeaseLost({ key, reason });
        yield* Deferred.succeed(lostSignal, lost);
        return yield* Effect.fail(yield* Deferred.await(lostSignal));
      });

    const fence = Effect.gen(function* () {
      if (yield* Deferred.isDone(lostSignal)) return yield* Effect.fail(yield* Deferred.await(lostSignal));
      const now = yield* Clock.currentTimeMillis;
      if (now - state.renewedAt >= timing.leaseMs / 2)
        return yield* lose(`not renewed for ${now - state.renewedAt} ms`);
    });

    /**
     * Writes the record at the revision last written; the only way the lease changes while held.
     * `checkpointNow` is read once the lock is held, so a renewal waiting behind a save writes that save's checkpoint.
     */
    const write = (checkpointNow: () => Checkpoint | null) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          yield* fence;
          const checkpoint = checkpointNow();
          const now = yield* Clock.currentTimeMillis;
          const written = yield* Effect.either(
            store.update(key, record(owner, now, checkpoint), state.revision),
          );
          if (Either.isRight(written)) {
            state.revision = written.right;
            state.checkpoint = checkpoint;
            state.renewedAt = now;
            return;
          }
          if (written.left._tag === "LeaseConflict") return yield* lose("another process took it over");
          yield* fence;
          return yield* Effect.fail(written.left);
        }),
      );

    // The checkpoint is read at each renewal: the one saved last, not the one the lease was taken with
    // (none, for a chain followed for the first time). A renewal writing that one hands the next holder
    // (this process after a restart, or a standby) a resume point behind what was published: it never
    // compares the blocks published since with the chain, so a reorg of them stays in the index.
    const renew = write(() => state.checkpoint).pipe(
      Effect.catchTag("LeaseStoreError", (error) => Effect.logWarning(`renewing ${error.message}`)),
    );
    yield* Effect.forkScoped(
      Effect.forever(Effect.zipRight(Effect.sleep(timing.leaseMs / 4), renew)).pipe(
        Effect.catchTag("LeaseLost", () => Effect.void),
      ),
    );
    // Hand the lease back on a clean stop, unless it is already gone.
    yield* Effect.addFinalizer(() =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          if (yield* Deferred.isDone(lostSignal)) return;
          const now = yield* Clock.currentTimeMillis;
          yield* Effect.ignore(store.update(key, record(null, now, state.checkpoint), state.revision));
        }),
      ),
    );

    const held: HeldLease = {
      checkpoint: state.checkpoint ?? undefined,
      fence,
      freshAt: (now) => !lostSeen && now - state.renewedAt < timing.leaseMs / 2,
      save: (checkpoint) => write(() => checkpoint),
      lost: Deferred.await(lostSignal),
    };
    return held;
  });
