import type { Db } from "./Level.js";

/**
 * The values of `keys`, read synchronously (LevelDB's `getSync`) once the database is open, and
 * through its queue (`getMany`) while it is still opening. For the few keys a wallet's first answer
 * waits on: read that way they cost microseconds, where a round trip through the thread pool cost a
 * millisecond or more while other chains' sweeps shared the pool.
 */
export const readNow = (db: Db, keys: ReadonlyArray<string>): Promise<ReadonlyArray<unknown>> =>
  db.status === "open" ? Promise.resolve(keys.map((key) => db.getSync(key))) : db.getMany([...keys]);
