import { Readable } from "node:stream";
import { createGunzip, createGzip } from "node:zlib";
import type { Db } from "../../storage/Level.js";
import { PREFIX } from "../indexKeys.js";

/**
 * A snapshot of the index is every `idx!` key with its stored JSON, one `key\tvalue\n` line each,
 * gzipped. Keys are ASCII built by the key codecs (no tab, no newline), and JSON text never holds a
 * raw newline, so a line is a record. Values are copied as the text LevelDB holds, never parsed.
 */

/** The first key after every `idx!` key. */
export const INDEX_END = `${PREFIX.slice(0, -1)}${String.fromCharCode(PREFIX.charCodeAt(PREFIX.length - 1) + 1)}`;

/** Records written per LevelDB batch when a snapshot is restored. */
const RESTORE_BATCH = 5_000;

/** Fastest gzip level: a snapshot is written often and the stream's chunks cost little to keep. */
const GZIP_LEVEL = 1;

/** The index at one moment, as a gzipped byte stream, and the stream sequence it had applied then. */
export interface IndexSnapshotBytes {
  /** `seqKey`'s value in the snapshot (0: the index had applied nothing). */
  readonly seq: number;
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
  try {
    seq = ((await db.get(seqKey, { snapshot })) as number | undefined) ?? 0;
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
    stream: Readable.from(lines()).pipe(createGzip({ level: GZIP_LEVEL })),
    records: () => records,
  };
};

/** A line of a snapshot that is not `key\tvalue`: the object is not one this service wrote. */
export class CorruptSnapshot extends Error {}

/**
 * Writes the records of a gzipped snapshot into `db`, in batches, after clearing every `idx!` key.
 * `lastKey`'s record, when the snapshot has one, is written last, in the final batch: it is the
 * index's stream position, and a restore interrupted before it leaves an index without one, which
 * the next start treats as empty and restores again. Answers the number of records written.
 */
export const restoreSnapshot = async (
  db: Db,
  source: AsyncIterable<Uint8Array>,
  lastKey: string,
): Promise<number> => {
  await db.clear({ gte: PREFIX, lt: INDEX_END });
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
  const gunzip = Readable.from(source).pipe(createGunzip());
  gunzip.setEncoding("utf8");
  for await (const text of gunzip as AsyncIterable<string>) {
    const lines = (rest + text).split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) await put(line);
  }
  if (rest.length > 0) throw new CorruptSnapshot("the snapshot ends inside a record");
  if (last !== undefined) batch.push({ type: "put", key: lastKey, value: last });
  if (batch.length > 0) await db.batch(batch, { valueEncoding: "utf8" });
  return records;
};
