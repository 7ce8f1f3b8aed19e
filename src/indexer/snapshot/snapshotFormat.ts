import { pipeline, Readable } from "node:stream";
import { createGunzip, createGzip } from "node:zlib";
import type { Db } from "../../storage/Level.js";
import { INDEX_STREAM_KEY, PREFIX } from "../indexKeys.js";

/**
 * A snapshot of the index is every `idx!` key with its stored JSON, one `key\tvalue\n` line each,
 * gzipped. Keys are ASCII built by the key codecs (no tab, no newline), and JSON text never holds a
 * raw newline, so a line is a record. Values are copied as the text LevelDB holds, never parsed.
 */

/** The first key after every `idx!` key. */
export const INDEX_END = `${PREFIX.slice(0, -1)}${String.fromCharCode(PREFIX.charCodeAt(PREFIX.length - 1) + 1)}`;

/**
 * Present from before a restore clears the index until the batch that writes the restored stream
 * position: a store holding it holds part of a snapshot (the restore was killed), which must never
 * be taken for an index. Its checkpoints sort before most views, so a replay from the stream's
 * start would skip every block they name while the views those blocks wrote are missing.
 */
export const RESTORING_KEY = `${PREFIX}restoring`;

/**
 * Deletes every `idx!` key, RESTORING_KEY last: a clear is many writes, and one killed partway
 * leaves the marker for the next start to finish it. Keys outside the index (the webhook outbox's,
 * ingest's checkpoints) are kept.
 */
export const clearIndex = async (db: Db): Promise<void> => {
  await clearIndexButMarker(db);
  await db.del(RESTORING_KEY);
};

const clearIndexButMarker = async (db: Db): Promise<void> => {
  await db.clear({ gte: PREFIX, lt: RESTORING_KEY });
  await db.clear({ gt: RESTORING_KEY, lt: INDEX_END });
};

/** Records written per LevelDB batch when a snapshot is restored. */
const RESTORE_BATCH = 5_000;

/** Fastest gzip level: a snapshot is written often and the stream's chunks cost little to keep. */
const GZIP_LEVEL = 1;

/** The index at one moment, as a gzipped byte stream, and the stream sequence it had applied then. */
export interface IndexSnapshotBytes {
  /** `seqKey`'s value in the snapshot (0: the index had applied nothing). */
  readonly seq: number;
  /** The creation time of the CHAIN_EVENTS `seq` is a position in (INDEX_STREAM_KEY), if recorded. */
  readonly appliedFrom: string | undefined;
  readonly stream: Readable;
  /** Records streamed so far. */
  readonly records: () => number;
}

/**
 * The index as it stands at the call. Everything is read through one explicit LevelDB snapshot,
 * so the indexer's batches written meanwhile (views and stream sequence together) are wholly in
 * it or wholly out of it, and `seq` is the sequence of exactly what the bytes hold.
 */
export const snapshotBytes = async (db: Db, seqKey: string): Promise<IndexSnapshotBytes> => {
  const snapshot = db.snapshot();
  let records = 0;
  let seq: number;
  let appliedFrom: string | undefined;
  try {
    seq = ((await db.get(seqKey, { snapshot })) as number | undefined) ?? 0;
    appliedFrom = (await db.get(INDEX_STREAM_KEY, { snapshot })) as string | undefined;
  } catch (error) {
    await snapshot.close();
    throw error;
  }
  const iterator = db.iterator({
    gte: PREFIX,
    lt: INDEX_END,
    keyEncoding: "utf8",
    valueEncoding: "utf8",
    snapshot,
  });
  async function* lines() {
    try {
      for (;;) {
        const entries = (await iterator.nextv(1_000)) as Array<[string, string]>;
        if (entries.length === 0) return;
        records += entries.length;
        yield entries.map(([key, value]) => `${key}\t${value}\n`).join("");
      }
    } finally {
      await iterator.close();
      await snapshot.close();
    }
  }
  return {
    seq,
    appliedFrom,
    // pipeline, not pipe: a reader that gives up (a failed upload destroys the gzip stream) must
    // end the source too, whose `finally` closes the iterator and the LevelDB snapshot it pins.
    stream: pipeline(Readable.from(lines()), createGzip({ level: GZIP_LEVEL }), () => {}),
    records: () => records,
  };
};

/** A line of a snapshot that is not `key\tvalue`: the object is not one this service wrote. */
export class CorruptSnapshot extends Error {}

/**
 * The longest record a snapshot may hold. The largest the index writes is a block's undo record
 * (a key per touch, a few hundred KB on the busiest blocks); a longer line is not one this service
 * wrote, and gathering it would only cost memory.
 */
const MOST_RECORD_CHARS = 16 * 1024 * 1024;

/**
 * Writes the records of a gzipped snapshot into `db`, in batches, after clearing every `idx!` key.
 * RESTORING_KEY (holding `marker`, which says what is restored) is written before the clear and
 * deleted in the final batch, with `lastKey`'s record
 * (the index's stream position) and `alsoLast` (records the caller adds, replacing the snapshot's):
 * a restore interrupted before it leaves the marker, and the next start clears what was copied. A
 * snapshot without `lastKey` is refused, the marker left for the caller to clear. Answers the
 * number of records written.
 */
export const restoreSnapshot = async (
  db: Db,
  source: AsyncIterable<Uint8Array>,
  lastKey: string,
  alsoLast: Readonly<Record<string, unknown>> = {},
  marker: unknown = true,
): Promise<number> => {
  await db.put(RESTORING_KEY, marker);
  await clearIndexButMarker(db);
  let batch: Array<{ type: "put"; key: string; value: string }> = [];
  let last: string | undefined;
  let records = 0;
  let rest = "";
  const put = async (line: string) => {
    const tab = line.indexOf("\t");
    if (tab <= 0 || !line.startsWith(PREFIX))
      throw new CorruptSnapshot(`not a snapshot record: ${line.slice(0, 80)}`);
    const key = line.slice(0, tab);
    const value = line.slice(tab + 1);
    records += 1;
    if (key === lastKey) last = value;
    else batch.push({ type: "put", key, value });
    if (batch.length >= RESTORE_BATCH) {
      await db.batch(batch, { valueEncoding: "utf8" });
      batch = [];
    }
  };
  // pipeline, not pipe: an error of the source (a download given up) must end the loop below.
  const gunzip = pipeline(Readable.from(source), createGunzip(), () => {});
  gunzip.setEncoding("utf8");
  for await (const text of gunzip as AsyncIterable<string>) {
    // Only the new text is searched: splitting what is left over again with every chunk cost time
    // growing with the square of a line's length (a crafted line of a few MB held a start for hours).
    let start = 0;
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
      await put(rest + text.slice(start, end));
      rest = "";
      start = end + 1;
    }
    rest += text.slice(start);
    if (rest.length > MOST_RECORD_CHARS)
      throw new CorruptSnapshot(`a record longer than ${MOST_RECORD_CHARS} characters`);
  }
  if (rest.length > 0) throw new CorruptSnapshot("the snapshot ends inside a record");
  if (last === undefined) throw new CorruptSnapshot(`the snapshot has no ${lastKey} record`);
  batch.push({ type: "put", key: lastKey, value: last });
  for (const [key, value] of Object.entries(alsoLast))
    batch.push({ type: "put", key, value: JSON.stringify(value) });
  await db.batch([...batch, { type: "del", key: RESTORING_KEY }], { valueEncoding: "utf8" });
  return records;
};
