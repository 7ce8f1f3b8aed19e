import { BloomFilter } from "../lib/BloomFilter.js";
import type { Db } from "./Level.js";

/** Keys read per step of the scan that fills a filter. */
const SCAN_CHUNK = 1000;

/**
 * Which keys under one prefix may be in the database, for views whose keys are only ever added (a
 * reorg's undo deletes some, which leaves them "maybe there": a false positive, a read that finds
 * nothing). Planning a block asks LevelDB for a hundred such keys that are not there (a Base-sized
 * block's new wallet-token pairs); each costs LevelDB about 5 µs (its memtables, every level-0 file
 * and one file per deeper level), more as the index grows, and a filter lookup about 0.5 µs.
 *
 * The filter holds every key under the prefix: those a scan found when the database was opened and
 * every put since, taken before it is written (a prewrite hook, installed before anything else can
 * write). Until the scan has finished it rules nothing out. A second filter holds each key's group
 * (`rulesOutGroup`), so that a read of a whole group that holds nothing needs no LevelDB either.
 */
export class KeyPresence {
  readonly #filter = new BloomFilter();
  /**
   * The groups the keys fall in, apart from the keys: planning a block looks keys up by the hundred,
   * and a filter of keys alone stays smaller, so more of it stays in the CPU's caches.
   */
  readonly #groups = new BloomFilter();
  #ready = false;
  #keys = 0;
  #scanEnded!: () => void;
  /** Resolves when its scan has ended, whether or not it finished (then `ready` stays false). */
  readonly scanEnded = new Promise<void>((resolve) => {
    this.#scanEnded = resolve;
  });

  constructor(readonly prefix: string) {}

  /** Whether `key` is certainly not in the database. */
  rulesOut(key: string): boolean {
    return this.#ready && key.startsWith(this.prefix) && !this.#filter.mayHave(key);
  }

  /**
   * Whether no key of the group `group` (a key's part up to and including its last `!`: a wallet's
   * tokens on one chain, say) is in the database: a read of the whole group, which an iterator
   * costs LevelDB even when it is empty, is then answered empty without one.
   */
  rulesOutGroup(group: string): boolean {
    return this.#ready && group.startsWith(this.prefix) && !this.#groups.mayHave(group);
  }

  /** Whether the first scan has finished (before, nothing is ruled out). */
  get ready(): boolean {
    return this.#ready;
  }

  /** Bytes of the filters: 1.5-2.5 a key and a group (their tables' sizes are powers of two). */
  get bytes(): number {
    return this.#filter.bytes + this.#groups.bytes;
  }

  /** Keys added, by the scan and by writes (a key written twice counts twice). */
  get added(): number {
    return this.#keys;
  }

  add(key: string): void {
    this.#keys += 1;
    this.#filter.add(key);
    // The key's group, added once: a filter grows with what is added to it, and many keys share
    // their group (a wallet's tokens on a chain).
    this.#groups.addNew(key.slice(0, key.lastIndexOf("!") + 1));
  }

  /** Ends the scan: with `finished`, the filter now holds every key and rules out the others. */
  endScan(finished: boolean): void {
    if (finished) this.#ready = true;
    this.#scanEnded();
  }
}

/** The last key of the range of keys starting with `prefix` (its last character raised by one). */
const rangeEnd = (prefix: string) =>
  `${prefix.slice(0, -1)}${String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)}`;

/**
 * Starts a KeyPresence for each of `prefixes` on a database just opened: the hook that adds each
 * put's key is installed at once, then each prefix is scanned (in the background: answers before
 * the scans end). `detach` removes the hook. Call it before anything else holds the database: a
 * batch already under way would be in neither the scan nor the hook.
 */
export const watchKeyPresence = (db: Db, prefixes: ReadonlyArray<string>) => {
  const presences = prefixes.map((prefix) => new KeyPresence(prefix));
  const hook = (op: { readonly type: string; readonly key: unknown }) => {
    if (op.type !== "put" || typeof op.key !== "string") return;
    for (const presence of presences) if (op.key.startsWith(presence.prefix)) presence.add(op.key);
  };
  // Without a prefix to watch, no hook: with one, every put and del goes through a batch.
  if (presences.length > 0) db.hooks.prewrite.add(hook);
  const scanned = (async (): Promise<Error | undefined> => {
    for (const presence of presences) {
      let keys: ReturnType<Db["keys"]> | undefined;
      try {
        keys = db.keys({ gte: presence.prefix, lt: rangeEnd(presence.prefix) });
        for (;;) {
          const chunk = await keys.nextv(SCAN_CHUNK);
          if (chunk.length === 0) break;
          for (const key of chunk) if (typeof key === "string") presence.add(key);
        }
      } catch (error) {
        // The database closed meanwhile, or could not be read: nothing is ruled out.
        for (const unscanned of presences.slice(presences.indexOf(presence))) unscanned.endScan(false);
        return error instanceof Error ? error : new Error(String(error));
      } finally {
        await keys?.close().catch(() => undefined);
      }
      presence.endScan(true);
    }
    return undefined;
  })();
  return {
    presences,
    /** Resolves once every prefix is scanned, with the error that stopped a scan (its presence then rules nothing out). */
    scanned,
    detach: () => db.hooks.prewrite.delete(hook),
  };
};
