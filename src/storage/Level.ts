import { mkdir } from "node:fs/promises";
import type { AbstractLevel } from "abstract-level";
import { Context, Data, Effect, Layer } from "effect";
import { Level as ClassicLevel } from "level";
import { MemoryLevel } from "memory-level";

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

/** Opens the database at `path` for the life of the scope. */
export const layer = (path: string): Layer.Layer<Level, DataDirUnavailable> =>
  Layer.scoped(
    Level,
    Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          await mkdir(path, { recursive: true });
          const db = new ClassicLevel<string, unknown>(path, { valueEncoding: "json" });
          await db.open();
          return db as unknown as Db;
        },
        catch: (error) => openFailure(path, error),
      }),
      (db) => Effect.promise(() => db.close().catch(() => undefined)),
    ),
  );

/** An in-memory database (unit tests). */
export const layerMemory: Layer.Layer<Level> = Layer.sync(
  Level,
  () => new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db,
);
