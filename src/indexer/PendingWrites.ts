import type { Operation } from "../storage/Level.js";

/** The reads that planning a block makes of the index. */
export interface IndexReads {
  readonly get: (key: string) => Promise<unknown>;
  readonly getMany: (keys: Array<string>) => Promise<ReadonlyArray<unknown>>;
}

/** Marks a key deleted by a pending write (LevelDB answers `undefined` for it). */
const DELETED = Symbol("deleted");

/** A store read synchronously (LevelDB's `getSync`). */
export interface SyncStore {
  readonly getSync: (key: string) => unknown;
}

/**
 * Writes planned but not yet in LevelDB, read through: while the indexer catches up it plans several
 * blocks before writing them as one batch, and each block must see what the blocks before it wrote.
 * Reads of keys no pending write touches go to LevelDB, synchronously: a block's planning reads a
 * few keys several times over, nearly always from LevelDB's block cache, and a read through the
 * thread pool costs a round trip that kept the indexer idle more than half of the time it catches up.
 */
export class PendingWrites implements IndexReads {
  readonly #values = new Map<string, unknown>();
  readonly #ops: Array<Operation> = [];

  constructor(readonly db: SyncStore) {}

  /** Every pending write, in the order planned. */
  get ops(): ReadonlyArray<Operation> {
    return this.#ops;
  }

  add(ops: ReadonlyArray<Operation>): void {
    for (const op of ops) {
      this.#ops.push(op);
      this.#values.set(op.key, op.type === "put" ? op.value : DELETED);
    }
  }

  clear(): void {
    this.#ops.length = 0;
    this.#values.clear();
  }

  #read(key: string): unknown {
    if (!this.#values.has(key)) return this.db.getSync(key);
    const value = this.#values.get(key);
    return value === DELETED ? undefined : value;
  }

  readonly get = async (key: string): Promise<unknown> => this.#read(key);

  readonly getMany = async (keys: Array<string>): Promise<ReadonlyArray<unknown>> =>
    keys.map((key) => this.#read(key));
}
