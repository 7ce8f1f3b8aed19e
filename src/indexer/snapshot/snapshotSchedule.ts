import type { JetStreamManager } from "@nats-io/jetstream";
import type { ObjectStore } from "@nats-io/obj";
import { Clock, Duration, Effect, Random } from "effect";
import type { Db } from "../../storage/Level.js";
import { STREAM_SEQ_KEY } from "../Indexer.js";
import { purgeAbandonedChunks } from "./abandonedChunks.js";
import {
  readSnapshotInfo,
  SnapshotOfOtherStream,
  SnapshotRace,
  writeSnapshot,
} from "./IndexSnapshotStore.js";
import { recordedFingerprint } from "./indexFingerprint.js";

export interface SnapshotScheduleOptions {
  readonly db: Db;
  readonly store: ObjectStore;
  readonly jsm: JetStreamManager;
  readonly fingerprint: string;
  /** How often the deployment wants a new snapshot, ms (INDEX_SNAPSHOT_MINUTES). */
  readonly intervalMs: number;
  /** After how long without a new chunk an unfinished upload's chunks are purged (ABANDONED_AFTER_MS). */
  readonly abandonedAfterMs?: number;
}

/** What one look at the store did. */
export type SnapshotLook =
  | {
      readonly wrote: true;
      readonly seq: number;
      readonly bytes: number;
      readonly records: number;
      readonly ms: number;
    }
  | { readonly wrote: false; readonly reason: string };

/**
 * Writes a snapshot of this worker's index unless the store already holds a recent one of the same
 * stream and chains, or one at least as far along. Every API worker looks now and then; the write
 * names the revision it read, so when two look at once only one snapshot is stored. An index built
 * under another fingerprint than the process's (kept across a change of config or format) is never
 * written: a worker of the new config would take it for one of its own.
 */
export const snapshotIfDue = async (options: SnapshotScheduleOptions, now: number): Promise<SnapshotLook> => {
  const applied = ((await options.db.get(STREAM_SEQ_KEY)) as number | undefined) ?? 0;
  if (applied === 0) return { wrote: false, reason: "the index has applied nothing yet" };
  const builtUnder = await recordedFingerprint(options.db);
  if (builtUnder !== options.fingerprint)
    return {
      wrote: false,
      reason:
        builtUnder === undefined
          ? "the index has no record of the config it was built under"
          : "the index was built under other chains, protocols or index format",
    };
  const streamCreated = (await options.jsm.streams.info("CHAIN_EVENTS")).created;
  const { snapshot, revision, nuid } = await readSnapshotInfo(options.store);
  const { bucket } = await options.store.status();
  await purgeAbandonedChunks(options.jsm, bucket, nuid, now, options.abandonedAfterMs);
  const comparable =
    snapshot !== undefined &&
    snapshot.streamCreated === streamCreated &&
    snapshot.fingerprint === options.fingerprint;
  if (comparable && snapshot.seq >= applied)
    return { wrote: false, reason: "the stored snapshot is as far along as this index" };
  // A little less than the interval: the workers' jittered looks should not skip a whole round.
  if (comparable && now - snapshot.writtenAt < options.intervalMs * 0.9)
    return { wrote: false, reason: "the stored snapshot is recent" };
  const started = performance.now();
  try {
    const { info, records } = await writeSnapshot(
      options.store,
      options.db,
      { streamCreated, fingerprint: builtUnder },
      revision,
    );
    return { wrote: true, seq: info.seq, bytes: info.bytes, records, ms: performance.now() - started };
  } catch (error) {
    if (error instanceof SnapshotRace || error instanceof SnapshotOfOtherStream)
      return { wrote: false, reason: error.message };
    throw error;
  }
};

/**
 * Looks every interval, jittered by a quarter either way so the workers' looks spread out, the
 * first a quarter interval after start. A failed look is logged and the next one tried: snapshots
 * only speed up joining workers, they never hold up this one.
 */
export const runIndexSnapshots = (options: SnapshotScheduleOptions) =>
  Effect.gen(function* () {
    let wait = options.intervalMs / 4;
    for (;;) {
      const jitter = 0.75 + (yield* Random.next) * 0.5;
      yield* Effect.sleep(Duration.millis(wait * jitter));
      wait = options.intervalMs;
      const now = yield* Clock.currentTimeMillis;
      const look = yield* Effect.tryPromise(() => snapshotIfDue(options, now)).pipe(
        Effect.tapError((cause) =>
          Effect.logWarning("index snapshot not written; trying again later", cause),
        ),
        Effect.option,
      );
      if (look._tag === "Some" && look.value.wrote)
        yield* Effect.logInfo(
          `index snapshot written: stream message ${look.value.seq}, ${look.value.records} records, ${(look.value.bytes / 1024 / 1024).toFixed(1)} MiB in ${(look.value.ms / 1000).toFixed(1)} s`,
        );
    }
  });
