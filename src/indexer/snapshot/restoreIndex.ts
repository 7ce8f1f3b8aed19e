import type { JetStreamManager } from "@nats-io/jetstream";
import type { ObjectStore } from "@nats-io/obj";
import { Effect } from "effect";
import type { Db } from "../../storage/Level.js";
import { STREAM_SEQ_KEY } from "../Indexer.js";
import { INDEX_STREAM_KEY, PREFIX } from "../indexKeys.js";
import {
  readSnapshot,
  readSnapshotInfo,
  type SnapshotInfo,
  SnapshotStalled,
  untilStalled,
} from "./IndexSnapshotStore.js";
import { INDEX_FINGERPRINT_KEY, recordedFingerprint } from "./indexFingerprint.js";
import { clearIndex, INDEX_END, RESTORING_KEY, restoreSnapshot } from "./snapshotFormat.js";

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
      /** Downloads given up before this one, for want of chunks. */
      readonly stalls: number;
    }
  | { readonly restored: false; readonly reason: string; readonly applied: number };

/**
 * How long a download may go without a chunk (1 MiB each, sent as fast as the server reads them)
 * before it is given up: long enough for a server busy with other streams.
 */
const STALL_MS = 30_000;

/** Downloads tried, each from a fresh read of what is stored, before the worker replays instead. */
const DOWNLOAD_ATTEMPTS = 3;

export interface RestoreOptions {
  /** STALL_MS; tests shorten it. */
  readonly stallMs?: number;
  /** DOWNLOAD_ATTEMPTS. */
  readonly attempts?: number;
  /** What an interrupted restore left in its marker (discardInterruptedRestore), if one did. */
  readonly interrupted?: RestoreMarker;
}

/**
 * RESTORING_KEY's value while a restore runs: which snapshot (its stream, message and time of
 * writing), and how many starts in a row have begun restoring it.
 */
export interface RestoreMarker {
  readonly snapshot: string;
  readonly tries: number;
}

/**
 * Starts in a row whose restore of one snapshot did not finish before the next start skips it: a
 * restore killed by the machine running out of memory (the snapshot too large for it) would
 * otherwise be killed again at every start, and the worker never serve. One killed by a deploy is
 * tried once more.
 */
const RESTORE_TRIES = 2;

/** What a restore marker names a snapshot by. */
export const markOf = (info: SnapshotInfo): string => `${info.streamCreated}|${info.seq}|${info.writtenAt}`;

/**
 * Before the indexer starts: replaces this worker's index with the stored snapshot when
 * decideRestore says so, leaving the indexer to read the stream from the message after the
 * snapshot's. A snapshot that changed between its description and its bytes is used only if it
 * still qualifies. A download that stalls (the snapshot was replaced under it) is tried again from
 * the store's new description, `attempts` times in all; then the stall is thrown, the index empty.
 */
export const restoreIndexIfBehind = async (
  db: Db,
  store: ObjectStore,
  jsm: JetStreamManager,
  fingerprint: string,
  options: RestoreOptions = {},
): Promise<RestoreOutcome> => {
  const attempts = options.attempts ?? DOWNLOAD_ATTEMPTS;
  for (let stalls = 0; ; stalls++) {
    try {
      const outcome = await restoreOnce(
        db,
        store,
        jsm,
        fingerprint,
        options.stallMs ?? STALL_MS,
        options.interrupted,
      );
      return outcome.restored ? { ...outcome, stalls } : outcome;
    } catch (error) {
      if (!(error instanceof SnapshotStalled) || stalls + 1 >= attempts) throw error;
    }
  }
};

/** One look at the store and, when it qualifies, one download of its snapshot into `db`. */
const restoreOnce = async (
  db: Db,
  store: ObjectStore,
  jsm: JetStreamManager,
  fingerprint: string,
  stallMs: number,
  interrupted: RestoreMarker | undefined,
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
  if (!decision.restore || snapshot === undefined) {
    await snapshot?.data.cancel();
    return {
      restored: false,
      reason: decision.restore ? "the snapshot went away" : decision.reason,
      applied,
    };
  }
  const mark = markOf(snapshot.info);
  const tries = interrupted?.snapshot === mark ? interrupted.tries : 0;
  if (tries >= RESTORE_TRIES) {
    await snapshot.data.cancel();
    return {
      restored: false,
      reason: `the last ${tries} restores of the stored snapshot were cut short (the process stopped, or ran out of memory): replaying the stream instead`,
      applied,
    };
  }
  try {
    // The fingerprint it was built under comes with the index (settleIndexFingerprint).
    const records = await restoreSnapshot(
      db,
      untilStalled(snapshot.data, stallMs),
      STREAM_SEQ_KEY,
      { [INDEX_FINGERPRINT_KEY]: snapshot.info.fingerprint },
      { snapshot: mark, tries: tries + 1 } satisfies RestoreMarker,
    );
    const restored = ((await db.get(STREAM_SEQ_KEY)) as number | undefined) ?? 0;
    if (restored !== snapshot.info.seq)
      throw new Error(
        `the index snapshot says it holds stream message ${snapshot.info.seq} but its records end at ${restored}`,
      );
    return {
      restored: true,
      seq: restored,
      records,
      bytes: snapshot.info.bytes,
      ms: performance.now() - started,
      stalls: 0,
    };
  } catch (error) {
    // Bytes never read still hold a consumer (a locked stream's cancel fails: its reader cancelled it).
    await snapshot.data.cancel().catch(() => undefined);
    // Part of a snapshot must not meet a replay from the stream's start (its checkpoints would make
    // the indexer skip blocks): the index is left empty, as a worker that never had one.
    await clearIndex(db);
    throw error;
  }
};

/**
 * A restore killed partway (RESTORING_KEY still there) left part of a snapshot: cleared before
 * anything reads the index, which then starts empty. Answers its marker when there was one (`true`
 * from a version whose marker said nothing more).
 */
export const discardInterruptedRestore = async (db: Db): Promise<RestoreMarker | true | undefined> => {
  const marker = (await db.get(RESTORING_KEY)) as RestoreMarker | true | undefined;
  if (marker === undefined) return undefined;
  await clearIndex(db);
  return marker;
};

export { INDEX_STREAM_KEY } from "../indexKeys.js";

/**
 * Clears an index applied from an earlier CHAIN_EVENTS than the one there now, before anything
 * reads its stream position; answers whether it did. An index with no record (from a version that
 * kept none) is taken to be of this stream; `recordIndexStream` records it after the start.
 */
export const discardIndexOfOtherStream = async (db: Db, streamCreated: string): Promise<boolean> => {
  const recorded = (await db.get(INDEX_STREAM_KEY)) as string | undefined;
  if (recorded === undefined || recorded === streamCreated) return false;
  await clearIndex(db);
  return true;
};

/** Records the stream the index is applied from (a restored snapshot's record, if any, is the same one). */
export const recordIndexStream = (db: Db, streamCreated: string): Promise<void> =>
  db.put(INDEX_STREAM_KEY, streamCreated);

/** What settleIndexFingerprint found. */
export type FingerprintSettled =
  | { readonly settled: "same" | "recorded" | "adopted" }
  | { readonly settled: "other"; readonly recorded: string };

/**
 * After the start-up restore (or none): records the fingerprint an index is built under when it
 * starts empty (one restored has its snapshot's already). An index with a record of another keeps
 * it: it was built under another config or format, and the record keeps it from being written as a
 * snapshot. An index with no record was built by a version that kept none: it is taken, once, to be
 * of the current fingerprint ("adopted", said in the log), as the workers of that version stamped
 * their snapshots; one whose config changed in the same restart is then mistaken for this config's.
 */
export const settleIndexFingerprint = async (db: Db, fingerprint: string): Promise<FingerprintSettled> => {
  const recorded = await recordedFingerprint(db);
  if (recorded === fingerprint) return { settled: "same" };
  const empty = !(await holdsIndex(db));
  if (!empty && recorded !== undefined) return { settled: "other", recorded };
  await db.put(INDEX_FINGERPRINT_KEY, fingerprint);
  return { settled: empty ? "recorded" : "adopted" };
};

/** Whether `db` holds an index key other than its fingerprint record. */
const holdsIndex = async (db: Db): Promise<boolean> => {
  const keys = await db.keys({ gte: PREFIX, lt: INDEX_END, limit: 2 }).all();
  return keys.some((key) => key !== INDEX_FINGERPRINT_KEY);
};

const logSettled = (settled: FingerprintSettled, fingerprint: string) => {
  switch (settled.settled) {
    case "adopted":
      return Effect.logInfo(
        `the index has no record of the config it was built under (an earlier version kept none): taken to be this one's (fingerprint ${fingerprint})`,
      );
    case "other":
      return Effect.logWarning(
        `the index was built under other chains, protocols or index format (fingerprint ${settled.recorded}, now ${fingerprint}): this worker writes no index snapshots until its DATA_DIR is emptied and the index built again`,
      );
    default:
      return Effect.void;
  }
};

/**
 * An API worker's start: clears what an interrupted restore left, then restoreIndexIfBehind, said in
 * the log, then settleIndexFingerprint. A store that cannot be read ends nothing: the worker replays
 * the stream, as it would without snapshots. A LevelDB that cannot be read ends start-up.
 */
export const startFromSnapshot = (
  db: Db,
  store: ObjectStore,
  jsm: JetStreamManager,
  fingerprint: string,
  options: RestoreOptions = {},
) =>
  Effect.gen(function* () {
    const interrupted = yield* Effect.promise(() => discardInterruptedRestore(db));
    if (interrupted !== undefined)
      yield* Effect.logWarning(
        "the index held part of a snapshot whose restore was interrupted: cleared, the index starts empty",
      );
    const streamCreated = yield* Effect.tryPromise(() => jsm.streams.info("CHAIN_EVENTS")).pipe(
      Effect.map((info) => info.created),
      Effect.option,
    );
    if (
      streamCreated._tag === "Some" &&
      (yield* Effect.promise(() => discardIndexOfOtherStream(db, streamCreated.value)))
    )
      yield* Effect.logWarning(
        `the index was applied from an earlier CHAIN_EVENTS stream than the one created at ${streamCreated.value}: cleared, the index starts empty`,
      );
    yield* Effect.tryPromise(() =>
      restoreIndexIfBehind(db, store, jsm, fingerprint, {
        ...options,
        ...(typeof interrupted === "object" ? { interrupted } : {}),
      }),
    ).pipe(
      Effect.tap((outcome) =>
        outcome.restored
          ? Effect.logInfo(
              `index started from the snapshot at stream message ${outcome.seq} (${outcome.records} records, ${(outcome.bytes / 1024 / 1024).toFixed(1)} MiB, ${(outcome.ms / 1000).toFixed(1)} s${outcome.stalls > 0 ? `, after ${outcome.stalls} stalled downloads` : ""}): replaying the stream after it`,
            )
          : outcome.applied === 0
            ? Effect.logInfo(`index starts empty and replays the stream: ${outcome.reason}`)
            : Effect.logDebug(`index resumes from stream message ${outcome.applied}: ${outcome.reason}`),
      ),
      Effect.catchAll((cause) =>
        Effect.logWarning("the index snapshot could not be read; replaying the stream instead", cause),
      ),
    );
    // A failed restore clears what it copied; one whose clear failed too leaves its marker, and the
    // index must not be read as it is: the start ends, and the next one clears it first.
    if ((yield* Effect.promise(() => db.get(RESTORING_KEY))) !== undefined)
      return yield* Effect.dieMessage(
        "part of an index snapshot could not be cleared after its restore failed; restart the worker to clear it",
      );
    yield* logSettled(yield* Effect.promise(() => settleIndexFingerprint(db, fingerprint)), fingerprint);
    if (streamCreated._tag === "Some")
      yield* Effect.promise(() => recordIndexStream(db, streamCreated.value));
  });
