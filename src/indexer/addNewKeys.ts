import type { Operation } from "../storage/Level.js";
import type { UndoEntry } from "./IndexRecords.js";
import type { IndexReads } from "./PendingWrites.js";

/**
 * The puts of those `writes` whose key the index does not hold yet, each recorded for undo. For views
 * whose keys are only ever added (first sighting wins), so undoing a block deletes what it added.
 */
export const addNewKeys = async (
  db: IndexReads,
  writes: ReadonlyArray<readonly [string, unknown]>,
): Promise<{ readonly ops: ReadonlyArray<Operation>; readonly undo: ReadonlyArray<UndoEntry> }> => {
  if (writes.length === 0) return { ops: [], undo: [] };
  const existing = await db.getMany(writes.map(([key]) => key));
  const ops: Array<Operation> = [];
  const undo: Array<UndoEntry> = [];
  writes.forEach(([key, value], i) => {
    if (existing[i] !== undefined) return;
    ops.push({ type: "put", key, value });
    undo.push(key);
  });
  return { ops, undo };
};
