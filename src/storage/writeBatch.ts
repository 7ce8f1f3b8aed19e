import type { Db, Operation } from "./Level.js";

/**
 * Writes `ops` to `db` as one atomic batch, through abstract-level's chained batch. Its array form
 * (`db.batch(ops)`) clones every operation and normalises its encodings before the write, and with
 * a prewrite hook installed (KeyPresence) does so twice: measured over 3,500 wallet-token puts, the
 * chained form took about half of the array form's main-thread time, for the same write.
 */
export const writeBatch = async (db: Db, ops: ReadonlyArray<Operation>): Promise<void> => {
  const batch = db.batch();
  try {
    for (const op of ops) {
      if (op.type === "put") batch.put(op.key, op.value);
      else batch.del(op.key);
    }
  } catch (error) {
    // A value the encoding refuses: nothing is written, and the batch's resources are let go.
    await batch.close();
    throw error;
  }
  await batch.write();
};
