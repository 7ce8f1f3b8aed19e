import type { KeyPresence } from "../storage/KeyPresence.js";
import type { Operation } from "../storage/Level.js";
import { tokenMetadataKey, vaultProbeKey } from "./indexKeys.js";

/** The reads that planning a block makes of the index. */
export interface IndexReads {
  readonly get: (key: string) => Promise<unknown>;
  readonly getMany: (keys: Array<string>) => Promise<ReadonlyArray<unknown>>;
}

/** Marks a key deleted by a pending write (LevelDB answers `undefined` for it). */
const DELETED = Symbol("deleted");

/**
 * Views whose keys keep the value they were first written with until a reorg's undo deletes them,
 * which the indexer does through `add`: token metadata and vault probes. Nearly every block asks
 * for dozens of them, and once one is known to be there it need not be read from LevelDB again.
 */
const viewPrefix = (keyOfChain0: string) => keyOfChain0.slice(0, -"000000000000!".length);
const METADATA_VIEW = viewPrefix(tokenMetadataKey(0, ""));
const VAULT_PROBE_VIEW = viewPrefix(vaultProbeKey(0, ""));
// Two tests, not a search of a list: this runs for every read and write of every block's planning.
const isSettled = (key: string) => key.startsWith(METADATA_VIEW) || key.startsWith(VAULT_PROBE_VIEW);
/** Settled keys remembered (a few hundred bytes each): the tokens a chain's recent blocks touch. */
const SETTLED_ENTRIES = 50_000;

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
  /**
   * Settled keys known to be in LevelDB (or in this batch), with their values; kept across batches.
   * The oldest is forgotten first: an LRU's re-insertion on every hit cost more than the reads saved.
   */
  readonly #settled = new Map<string, unknown>();

  /** `presence`: keys it rules out are answered absent without asking LevelDB (KeyPresence.ts). */
  constructor(
    readonly db: SyncStore,
    readonly presence?: Pick<KeyPresence, "rulesOut">,
  ) {}

  /** Every pending write, in the order planned. */
  get ops(): ReadonlyArray<Operation> {
    return this.#ops;
  }

  add(ops: ReadonlyArray<Operation>): void {
    for (const op of ops) {
      this.#ops.push(op);
      this.#values.set(op.key, op.type === "put" ? op.value : DELETED);
      if (!isSettled(op.key)) continue;
      if (op.type === "put") this.#remember(op.key, op.value);
      else this.#settled.delete(op.key);
    }
  }

  clear(): void {
    this.#ops.length = 0;
    this.#values.clear();
  }

  #read(key: string): unknown {
    // One lookup: a pending put's value is never undefined (LevelDB refuses to store it).
    const pending = this.#values.get(key);
    if (pending !== undefined) return pending === DELETED ? undefined : pending;
    if (!isSettled(key)) return this.presence?.rulesOut(key) === true ? undefined : this.db.getSync(key);
    const known = this.#settled.get(key);
    if (known !== undefined) return known;
    // Only a key found is remembered: one absent now may be written by discovery at any moment.
    const value = this.db.getSync(key);
    if (value !== undefined) this.#remember(key, value);
    return value;
  }

  #remember(key: string, value: unknown): void {
    if (this.#settled.size >= SETTLED_ENTRIES && !this.#settled.has(key))
      this.#settled.delete(this.#settled.keys().next().value!);
    this.#settled.set(key, value);
  }

  readonly get = async (key: string): Promise<unknown> => this.#read(key);

  readonly getMany = async (keys: Array<string>): Promise<ReadonlyArray<unknown>> =>
    keys.map((key) => this.#read(key));
}
