import type { KV } from "@nats-io/kv";
import { Clock, Effect, Exit, type Scope } from "effect";
import { acquireLease, type LeaseTiming } from "../../ingest/lease/ChainLease.js";
import type { LeaseStore } from "../../ingest/lease/LeaseStore.js";
import { followBucket } from "../../nats/followBucket.js";
import type { StreamTail } from "../../nats/streamTail.js";
import type { OwnedPartitions } from "./OwnedPartitions.js";
import { leaseKey, PARTITIONS, partitionFilter } from "./outboxBucketKeys.js";
import { PartitionIndex } from "./PartitionIndex.js";
import { DONE_KEPT_MS, storedValue } from "./StoredDelivery.js";

/** Where a partition's deliveries come from (the outbox bucket; a fake in unit tests). */
export interface PartitionSource {
  /**
   * Fills `index` with the partition's stored deliveries and keeps it current until the scope
   * closes; `wake` is told of newly sendable ones. Completes once the stored deliveries are in.
   */
  readonly load: (
    partition: number,
    index: PartitionIndex,
    wake: (webhookId: string) => void,
  ) => Effect.Effect<void, unknown, Scope.Scope>;
  /** Deletes the partition's old done markers. */
  readonly sweep: (index: PartitionIndex) => Effect.Effect<void>;
}

export interface PartitionOwnerOptions {
  readonly source: PartitionSource;
  readonly leases: LeaseStore;
  /** This process's identity in the leases (unique per process). */
  readonly owner: string;
  readonly timing: LeaseTiming;
  readonly owned: OwnedPartitions;
  /** How many partitions this process should own at most (its fair share among the live API processes). */
  readonly share: () => number;
  /** A webhook has a delivery to send here now: wake its actor. */
  readonly wake: (webhookId: string) => void;
}

/**
 * Follows a partition's keys into `index` (followBucket, listing): watches changes first, then
 * reads what is stored from the stream's leader, so a change landing in between is seen (the index
 * keeps the newest revision of each key). A replica that has not applied a write acknowledged
 * before the watch began would show an older revision, which the watch, starting after that
 * write, never corrects; the owner's record of an attempt would then name that revision and be
 * refused. Completes once the stored keys are read; a watch that ends or stalls is replaced and the
 * partition read again, its actors woken for what it missed, until the scope closes.
 */
const loadPartition =
  (kv: KV, listKeys: (filter: string) => Promise<Array<string>>, tail: StreamTail, checkEveryMs: number) =>
  (partition: number, index: PartitionIndex, wake: (id: string) => void) =>
    Effect.gen(function* () {
      let loaded = false;
      const stored = {
        by: "listing" as const,
        listKeys,
        reconcile: { held: () => index.storedRevisions(), vanished: (key: string) => index.drop(key) },
      };
      const ready = yield* followBucket(
        kv,
        { key: partitionFilter(partition), stored, stallCheckMs: checkEveryMs, tail },
        (entry) => {
          // This process's own writes come back too: known already, they are not decoded again.
          if (index.knows(entry.key, entry.revision)) return;
          // Or it came before the write's answer: recognised by its bytes, still not decoded.
          const value =
            (entry.operation === "PUT" ? index.echoOf(entry.key, entry.value) : undefined) ??
            storedValue(entry.operation, entry.value);
          const fresh = index.apply(entry.key, entry.revision, value);
          if (fresh && loaded) wake(entry.key.split(".")[2]!);
        },
      );
      yield* ready;
      loaded = true;
    });

/**
 * Removes the partition's done markers older than DONE_KEPT_MS from the bucket's
 * stream altogether: a KV delete would leave a marker per delivered key for
 * ever. Nothing else writes a done marker, and no replay comes that late.
 */
export const sweepDone = (purge: (key: string) => Promise<void>) => (index: PartitionIndex) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis;
    const old = index.doneBefore(now - DONE_KEPT_MS);
    for (let i = 0; i < old.length; i += 64)
      yield* Effect.promise(() =>
        Promise.all(
          old.slice(i, i + 64).map((e) =>
            purge(e.key).then(
              () => index.drop(e.key),
              () => undefined,
            ),
          ),
        ),
      );
  });

/** The partitions as the `webhook_outbox` bucket holds them; `purge` removes a key's messages from its stream. */
export const bucketSource = (
  kv: KV,
  listKeys: (filter: string) => Promise<Array<string>>,
  purge: (key: string) => Promise<void>,
  tail: StreamTail,
  /** How often an owner checks that its partition's watch keeps up with the stream. */
  watchCheckMs: number,
): PartitionSource => ({
  load: loadPartition(kv, listKeys, tail, watchCheckMs),
  sweep: sweepDone(purge),
});

/** Waits until the partition's in-flight attempts have ended (each is bounded by the attempt deadline). */
const drained = (owned: OwnedPartitions, partition: number) =>
  Effect.gen(function* () {
    while (owned.drain(partition) > 0) yield* Effect.sleep("50 millis");
  });

/**
 * Owns one partition whenever this process can: waits for its lease (taking
 * a free one only while below its share, a silent holder's at once), loads the partition's deliveries, wakes their webhooks'
 * actors, and sends them until the lease is lost or, when this process holds
 * more than its share for a whole `handBackAfterMs`, hands the partition back
 * (after its attempts in flight end) so a process with fewer takes it.
 */
const ownPartition = (options: PartitionOwnerOptions, partition: number, handBackAfterMs: number) =>
  Effect.forever(
    Effect.gen(function* () {
      const handedBack = yield* Effect.scoped(
        Effect.gen(function* () {
          const lease = yield* acquireLease(
            options.leases,
            leaseKey(partition),
            options.owner,
            options.timing,
            // Free partitions only up to the share; a dead process's at once, whatever the share.
            () => options.owned.size < options.share(),
          );
          const index = new PartitionIndex();
          // A watch or listing can hang while a server is lost: holding the lease meanwhile would
          // keep the partition from everyone, so give it back and try again.
          yield* options.source.load(partition, index, options.wake).pipe(
            Effect.timeoutFail({
              duration: options.timing.leaseMs,
              onTimeout: () => new Error("loading it took longer than a lease period"),
            }),
          );
          // The fence reads the time from the clock the lease was taken with.
          const clock = yield* Effect.clock;
          options.owned.add(partition, {
            index,
            wake: options.wake,
            // Checked several times per delivery: the quick answer first, the fence itself only when in doubt.
            fenced: () =>
              lease.freshAt(clock.unsafeCurrentTimeMillis()) ||
              Exit.isSuccess(Effect.runSyncExit(Effect.withClock(lease.fence, clock))),
          });
          // Runs before the lease is handed back (finalizers run last first): nothing is in flight by then.
          yield* Effect.addFinalizer(() =>
            Effect.zipRight(
              drained(options.owned, partition),
              Effect.sync(() => options.owned.remove(partition)),
            ),
          );
          for (const id of index.webhooksWithQueued()) options.wake(id);
          yield* Effect.forkScoped(
            Effect.forever(Effect.zipRight(Effect.sleep(DONE_KEPT_MS / 10), options.source.sweep(index))),
          );
          const overShare = Effect.gen(function* () {
            let since: number | undefined;
            for (;;) {
              yield* Effect.sleep(options.timing.leaseMs / 4);
              const now = yield* Clock.currentTimeMillis;
              const mine = [...Array(PARTITIONS).keys()].filter((p) => options.owned.owns(p));
              // The partitions beyond the share, highest first, go back together.
              const over = mine.indexOf(partition) >= options.share();
              since = over ? (since ?? now) : undefined;
              if (since !== undefined && now - since >= handBackAfterMs) return true;
            }
          });
          const ended = yield* Effect.raceFirst(
            Effect.as(lease.lost, "lost" as const),
            Effect.as(overShare, "handedBack" as const),
          );
          yield* ended === "handedBack"
            ? Effect.logInfo(
                `webhook outbox partition ${partition}: handed back (more than this process's share)`,
              )
            : Effect.logWarning(`webhook outbox partition ${partition}: lease lost; standing by`);
          return ended === "handedBack";
        }),
      ).pipe(
        // The bucket unreachable while loading (a broker restarting): the lease is handed back; try again.
        Effect.catchAll((error) =>
          Effect.as(
            Effect.zipRight(
              Effect.logWarning(
                `webhook outbox partition ${partition}: could not load it (${String(error)}${
                  error instanceof Error && error.cause !== undefined ? `: ${String(error.cause)}` : ""
                })`,
              ),
              Effect.sleep(options.timing.leaseMs / 4),
            ),
            false,
          ),
        ),
      );
      // Give a process with fewer partitions a lease period to take it.
      if (handedBack) yield* Effect.sleep(options.timing.leaseMs);
    }),
  );

/**
 * Runs the ownership of every partition of the webhook outbox in this
 * process until the scope closes, when owned partitions are handed back.
 * `handBackAfterMs` should outlast presence's view of a dead process, so
 * that a survivor that just took a dead process's partitions keeps them.
 */
export const ownPartitions = (
  options: PartitionOwnerOptions,
  handBackAfterMs: number,
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.asVoid(
    Effect.forEach(
      [...Array(PARTITIONS).keys()],
      (partition) =>
        Effect.forkScoped(
          ownPartition(options, partition, handBackAfterMs).pipe(
            Effect.catchAllCause((cause) =>
              Effect.logError(`webhook outbox partition ${partition}: owner stopped`, cause),
            ),
          ),
        ),
      { discard: true },
    ),
  );
