import { mkdir } from "node:fs/promises";
import type { AbstractLevel } from "abstract-level";
import { Context, Effect, Layer } from "effect";
import { Level as ClassicLevel } from "level";
import { MemoryLevel } from "memory-level";

/** A LevelDB database with string keys and JSON values. */
export type Db = AbstractLevel<string | Uint8Array | Buffer, string, unknown>;

/**
 * The node's own LevelDB (indexes, checkpoints, outbox). Views in it are derived
 * data: they can be rebuilt from the chain. The webhook outbox's records are not
 * (deliveries owed to receivers; OUTBOX_RECORD_PREFIXES). Keys are designed so
 * that lexicographic order is chain order (see each store's key codec).
 */
export class Level extends Context.Tag("app/storage/Level")<Level, Db>() {}

/** Opens the database at `path` for the life of the scope. */
export const layer = (path: string): Layer.Layer<Level> =>
  Layer.scoped(
    Level,
    Effect.acquireRelease(
      Effect.promise(async () => {
        await mkdir(path, { recursive: true });
        const db = new ClassicLevel<string, unknown>(path, { valueEncoding: "json" });
        await db.open();
        return db as unknown as Db;
      }),
      (db) => Effect.promise(() => db.close()),
    ),
  );

/** An in-memory database (unit tests). */
export const layerMemory: Layer.Layer<Level> = Layer.sync(
  Level,
  () => new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db,
);
