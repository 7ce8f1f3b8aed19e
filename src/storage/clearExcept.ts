import { mkdir } from "node:fs/promises";
import { Level as ClassicLevel } from "level";
import type { Db } from "./Level.js";

/** A key range as LevelDB's `clear` takes it; a missing bound is open. */
export interface KeyRange {
  readonly gte?: string;
  readonly lt?: string;
}

/** The first key after every key starting with `prefix` (its last character plus one). */
const after = (prefix: string) =>
  prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);

/**
 * The ranges holding every key that starts with none of `keep`: before the first prefix,
 * between each prefix's keys and the next prefix, and after the last. A prefix inside another
 * adds nothing. Keys are compared as LevelDB compares them (bytes); prefixes are ASCII.
 */
export const rangesOutside = (keep: ReadonlyArray<string>): ReadonlyArray<KeyRange> => {
  const sorted = [...new Set(keep)].filter((p) => p.length > 0).sort();
  const prefixes = sorted.filter((p, i) => !sorted.slice(0, i).some((outer) => p.startsWith(outer)));
  const ranges: Array<KeyRange> = [];
  let from: string | undefined;
  for (const prefix of prefixes) {
    if (from === undefined || from < prefix)
      ranges.push(from === undefined ? { lt: prefix } : { gte: from, lt: prefix });
    from = after(prefix);
  }
  ranges.push(from === undefined ? {} : { gte: from });
  return ranges;
};

/** Deletes every key of `db` that starts with none of `keep`. */
export const clearExcept = async (db: Db, keep: ReadonlyArray<string>): Promise<void> => {
  for (const range of rangesOutside(keep)) await db.clear(range);
};

/** Opens the LevelDB at `path` (created when missing), clears it except `keep`, and closes it. */
export const clearDatabaseExcept = async (path: string, keep: ReadonlyArray<string>): Promise<void> => {
  await mkdir(path, { recursive: true });
  const db = new ClassicLevel<string, unknown>(path, { valueEncoding: "json" });
  await db.open();
  try {
    await clearExcept(db as unknown as Db, keep);
  } finally {
    await db.close();
  }
};
