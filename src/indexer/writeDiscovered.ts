import type { Db, Operation } from "../storage/Level.js";
import type { IndexCache } from "./IndexCache.js";

/**
 * Writes what discovery found on the chain (pools from factory lookups, a wallet's tokens from a
 * balance sweep, position NFTs, lending markets) into the same views the indexer keeps, and makes
 * the process's memory forget what they change. These writes carry no undo record: every
 * candidate they add is checked against the chain by each request's own reads, so one a reorg
 * makes stale shows as nothing (a zero balance, an NFT no longer owned), never as a wrong answer.
 */
export const writeDiscovered = async (
  db: Db,
  cache: IndexCache | undefined,
  ops: ReadonlyArray<Operation>,
): Promise<void> => {
  if (ops.length === 0) return;
  await db.batch([...ops]);
  cache?.written(ops);
};
