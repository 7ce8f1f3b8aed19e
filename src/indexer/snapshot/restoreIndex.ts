import type { JetStreamManager } from "@nats-io/jetstream";
import type { ObjectStore } from "@nats-io/obj";
import { Effect } from "effect";
import type { Db } from "../../storage/Level.js";
import { STREAM_SEQ_KEY } from "../Indexer.js";
import { PREFIX } from "../indexKeys.js";
import { readSnapshot, readSnapshotInfo, type SnapshotInfo } from "./IndexSnapshotStore.js";
import { INDEX_END, restoreSnapshot } from "./snapshotFormat.js";

/** Where this worker's index stands against CHAIN_EVENTS, and what the store offers. */
export interface RestoreSituation {
  /** The last stream sequence the index applied (0: an empty index). */
  readonly applied: number;
  /** The stream's first sequence and creation time now. */
  readonly firstSeq: number;
  readonly streamCreated: string;
  /** This worker's indexFingerprint. */
  readonly fingerprint: string;
  readonly snapshot: SnapshotInfo | undefined;
}

/** Whether to start from the stored snapshot, and why not when not. */
export type RestoreDecision =
  | { readonly restore: true }
  | { readonly restore: false; readonly reason: string };

/**
 * A worker starts from the snapshot when its own index cannot be brought up to date from the
 * stream alone: it is empty (a new worker, or a lost DATA_DIR: replaying all of the stream is
 * slower than copying, and the stream may have dropped its start), or it stopped before the first
 * message the stream still holds (retention dropped what it had not applied). The snapshot must be
 * of this very stream (a recreated one numbers other messages), of an index built the same way
 * (fingerprint), and ahead of what the worker has.
 */
export const decideRestore = (s: RestoreSituation): RestoreDecision => {
  if (s.applied > 0 && s.applied + 1 >= s.firstSeq)
    return { restore: false, reason: "the stream still holds every message after the index's last" };
  if (s.snapshot === undefined) return { restore: false, reason: "no snapshot is stored" };
  if (s.snapshot.streamCreated !== s.streamCreated)
    return { restore: false, reason: "the stored snapshot is of an earlier CHAIN_EVENTS stream" };
  if (s.snapshot.fingerprint !== s.fingerprint)
    return {
      restore: false,
      reason: "the stored snapshot was written by a worker with other chains or protocols configured",
    };
  if (s.snapshot.seq <= s.applied)
    return { restore: false, reason: "the stored snapshot is not ahead of this index" };
  return { restore: true };
};

/** What the start-up check did. */
export type RestoreOutcome =
  | {
      readonly restored: true;
      readonly seq: number;
      readonly records: number;
      readonly bytes: number;
      readonly ms: number;
    }
  | { readonly restored: false; readonly reason: string; readonly applied: number };

/**
 * Before the indexer starts: replaces this worker's index with the stored snapshot when
 * decideRestore says so, leaving the indexer to read the stream from the message after the
 * snapshot's. A snapshot that changed between its description and its bytes is used only if it
 * still qualifies.
 */
export const restoreIndexIfBehind = async (
  db: Db,
  store: ObjectStore,
  jsm: JetStreamManager,
  fingerprint: string,
): Promise<RestoreOutcome> => {
  const applied = ((await db.get(STREAM_SEQ_KEY)) as number | undefined) ?? 0;
  const stream = await jsm.streams.info("CHAIN_EVENTS");
  const situation = (snapshot: SnapshotInfo | undefined): RestoreSituation => ({
    applied,
    firstSeq: stream.state.first_seq,
    streamCreated: stream.created,
    fingerprint,
    snapshot,
  });
  const first = decideRestore(situation((await readSnapshotInfo(store)).snapshot));
  if (!first.restore) return { restored: false, reason: first.reason, applied };
  const started = performance.now();
  const snapshot = await readSnapshot(store);
  const decision = decideRestore(situation(snapshot?.info));
  if (!decision.restore || snapshot === undefined)
    return {
      restored: false,
      reason: decision.restore ? "the snapshot went away" : decision.reason,
      applied,
    };
  let records: number;
  let restored: number;
  try {
    records = await restoreSnapshot(db, snapshot.data, STREAM_SEQ_KEY);
    restored = ((await db.get(STREAM_SEQ_KEY)) as number | undefined) ?? 0;
    if (restored !== snapshot.info.seq)
      throw new Error(
        `the index snapshot says it holds stream message ${snapshot.info.seq} but its records end at ${restored}`,
      );
  } catch (error) {
    // Part of a snapshot must not meet a replay from the stream's start (its checkpoints would make
    // the indexer skip blocks): the index is left empty, as a worker that never had one.
    await db.clear({ gte: PREFIX, lt: INDEX_END });
    throw error;
  }
  return {
    restored: true,
    seq: restored,
    records,
    bytes: snapshot.info.bytes,
    ms: performance.now() - started,
  };
};

/**
 * restoreIndexIfBehind at an API worker's start, said in the log. A store that cannot be read
 * ends nothing: the worker replays the stream, as it would without snapshots.
 */
export const startFromSnapshot = (db: Db, store: ObjectStore, jsm: JetStreamManager, fingerprint: string) =>
  Effect.tryPromise(() => restoreIndexIfBehind(db, store, jsm, fingerprint)).pipe(
    Effect.tap((outcome) =>
      outcome.restored
        ? Effect.logInfo(
            `index started from the snapshot at stream message ${outcome.seq} (${outcome.records} records, ${(outcome.bytes / 1024 / 1024).toFixed(1)} MiB, ${(outcome.ms / 1000).toFixed(1)} s): replaying the stream after it`,
          )
        : outcome.applied === 0
          ? Effect.logInfo(`index starts empty and replays the stream: ${outcome.reason}`)
          : Effect.logDebug(`index resumes from stream message ${outcome.applied}: ${outcome.reason}`),
    ),
    Effect.catchAll((cause) =>
      Effect.logWarning("the index snapshot could not be read; replaying the stream instead", cause),
    ),
  );
