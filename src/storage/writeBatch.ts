import type { Db, Operation } from "./Level.js";

/**
 * Writes `ops` to `db` as one atomic batch, through abstract-level's chained batch. The array form
 * (`db.batch(ops)`) builds a second array of encoded operations, all held until the native batch
 * reads them; the chained form hands each put to the native batch as it goes. Measured over 3,500
 * wallet-token puts with the key presence's prewrite hook installed: 1.5-2.2 µs of main-thread time
 * an operation chained, 2.6-2.8 as an array, for the same write.
 */
export const writeBatch = async (db: Db, ops: ReadonlyArray<Operation>): Promise<void> => {
  const batch = db.batch();
  try {
    for (const op of ops) {
      if (op.type === "put") batch.put(op.key, op.value);
      else batch.del(op.key);
    }
  } catch (error) {
    // A value the encoding refuses: nothing is written, and the batch is closed (it takes no more
    // operations). The refusal is what the caller hears, not a failure to close.
    await batch.close().catch(() => undefined);
    throw error;
  }
  await batch.write();
};
