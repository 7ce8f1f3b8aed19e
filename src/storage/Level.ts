import { mkdir } from "node:fs/promises";
import type { AbstractLevel } from "abstract-level";
import { Context, Data, Effect, Layer } from "effect";
import { Level as ClassicLevel } from "level";
import { MemoryLevel } from "memory-level";
import { type KeyPresence, watchKeyPresence } from "./KeyPresence.js";

/** One write of a LevelDB batch. */
export type Operation =
  | { readonly type: "put"; readonly key: string; readonly value: unknown }
  | { readonly type: "del"; readonly key: string };

/** A LevelDB database with string keys and JSON values. */
export type Db = AbstractLevel<string | Uint8Array | Buffer, string, unknown>;

/**
 * The node's own LevelDB (indexes, checkpoints, outbox). Views in it are derived
 * data: they can be rebuilt from the chain. The webhook outbox's records are not
 * (deliveries owed to receivers; OUTBOX_RECORD_PREFIXES). Keys are designed so
 * that lexicographic order is chain order (see each store's key codec).
 */
export class Level extends Context.Tag("app/storage/Level")<Level, Db>() {}

/**
 * The KeyPresence of each prefix the database was opened to watch (Level.layer's `watched`), by
 * prefix: which keys of views that are only ever added are certainly not there.
 */
export class KeyPresences extends Context.Tag("app/storage/KeyPresences")<
  KeyPresences,
  ReadonlyMap<string, KeyPresence>
>() {}

/** The node's LevelDB could not be opened: start-up ends with this one sentence. */
export class DataDirUnavailable extends Data.TaggedError("DataDirUnavailable")<{
  readonly message: string;
}> {}

/** Why the database at `path` could not be opened, in one sentence an operator can act on. */
export const openFailure = (path: string, error: unknown): DataDirUnavailable => {
  const cause = error as { code?: string; cause?: { message?: string }; message?: string };
  const detail = cause.cause?.message ?? cause.message ?? String(error);
  return new DataDirUnavailable({
    message: /lock/i.test(detail)
      ? `The database at ${path} is in use by another process (its LevelDB lock is held): stop that process or give this one another DATA_DIR.`
      : `The database at ${path} cannot be opened (${detail.split("\n")[0]}): check DATA_DIR and its permissions.`,
  });
};

/**
 * LevelDB's memtable size (its default is 4 MB). The index's keys are spread over the whole key
 * space (they begin with wallet addresses), so each flushed memtable is merged with nearly all of
 * the next level: on a Base-sized firehose with the default, compaction took 1.9 ms of CPU a block
 * beside the indexer's 1.8 ms, and with 32 MB 0.6 ms. It costs up to twice this in memory (the
 * memtable being written and the one being flushed), only once that much has been written.
 */
const WRITE_BUFFER_BYTES = 32 * 1024 * 1024;

/**
 * Opens the database at `path` for the life of the scope, with a KeyPresence for each of `watched`
 * (prefixes of views whose keys are only ever added), started before anything else can write.
 */
export const layer = (
  path: string,
  watched: ReadonlyArray<string> = [],
): Layer.Layer<Level | KeyPresences, DataDirUnavailable> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const db = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            await mkdir(path, { recursive: true });
            const db = new ClassicLevel<string, unknown>(path, {
              valueEncoding: "json",
              writeBufferSize: WRITE_BUFFER_BYTES,
            });
            await db.open();
            return db as unknown as Db;
          },
          catch: (error) => openFailure(path, error),
        }),
        (db) => Effect.promise(() => db.close().catch(() => undefined)),
      );
      const watch = yield* Effect.acquireRelease(
        Effect.sync(() => watchKeyPresence(db, watched)),
        (watch) => Effect.sync(watch.detach),
      );
      yield* Effect.forkScoped(reportScans(watch));
      return Context.make(Level, db).pipe(
        Context.add(KeyPresences, new Map(watch.presences.map((p) => [p.prefix, p]))),
      );
    }),
  );

/** Logs how the presence scans ended: how many keys each found and how long they took, or why one failed. */
const reportScans = (watch: ReturnType<typeof watchKeyPresence>) =>
  Effect.gen(function* () {
    if (watch.presences.length === 0) return;
    const started = performance.now();
    const failure = yield* Effect.promise(() => watch.scanned);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (failure !== undefined)
      return yield* Effect.logWarning(
        `the local store's key presence scan failed (${failure.message}); reads of absent keys go to LevelDB`,
      );
    for (const p of watch.presences)
      yield* Effect.logInfo(
        `local store: ${p.added.toLocaleString("en-US")} keys under ${p.prefix} scanned in ${seconds} s (a filter of ${(p.bytes / 1024 ** 2).toFixed(1)} MiB)`,
      );
  });

/** An in-memory database (unit tests). */
export const layerMemory: Layer.Layer<Level | KeyPresences> = Layer.syncContext(() =>
  Context.make(Level, new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db).pipe(
    Context.add(KeyPresences, new Map()),
  ),
);
