import type { JetStreamManager } from "@nats-io/jetstream";

/**
 * How long a version's chunks may go without a new one before they are taken for a writer's that
 * died mid-upload. A live upload adds a chunk every few milliseconds (1 MiB of gzip over a LevelDB
 * iterator); a write that lost its race has its chunks purged by the store client at once.
 */
export const ABANDONED_AFTER_MS = 10 * 60_000;

/**
 * Purges the chunks of snapshot uploads that never finished (a worker killed, or its connection
 * lost, mid-write): no object names them, and nothing else ever would remove them, so each such
 * upload would keep up to a whole index's bytes in the store for good. `bucket` is the object
 * store's (`index_snapshots`), whose chunks go to one subject per object version (its nuid); `live` is the stored
 * object's nuid (its chunks stay); chunks whose last one is younger than `abandonedAfterMs` may be
 * another worker's upload in progress and stay too. Answers how many uploads were purged.
 */
export const purgeAbandonedChunks = async (
  jsm: JetStreamManager,
  bucket: string,
  live: string | undefined,
  now: number,
  abandonedAfterMs: number = ABANDONED_AFTER_MS,
): Promise<number> => {
  const stream = `OBJ_${bucket}`;
  const chunks = `$O.${bucket}.C.`;
  const info = await jsm.streams.info(stream, { subjects_filter: `${chunks}>` });
  let purged = 0;
  for (const subject of Object.keys(info.state.subjects ?? {})) {
    if (subject === `${chunks}${live}`) continue;
    // A failed read (a leader election, a timeout) throws: the look ends, and nothing is purged
    // that may be an upload in progress. Null: the subject holds nothing any more.
    const last = await jsm.streams.getMessage(stream, { last_by_subj: subject });
    if (last !== null && now - last.time.getTime() < abandonedAfterMs) continue;
    await jsm.streams.purge(stream, { filter: subject });
    purged++;
  }
  return purged;
};
