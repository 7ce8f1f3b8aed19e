import { createHash } from "node:crypto";
import type { ChainRegistry } from "../../chains/ChainRegistry.js";
import type { Db } from "../../storage/Level.js";
import { PREFIX } from "../indexKeys.js";

/**
 * Bumped whenever the index's keys or records change shape: a snapshot written by an older
 * service is then not restored (its worker replays or discovers instead).
 */
const INDEX_FORMAT = 1;

/**
 * What an index depends on besides the chain itself: the key layout and, per chain, the contracts
 * its views follow (protocols, factories, the tokens prices are quoted in). Two workers with the
 * same fingerprint build the same index from the same stream, so one can start from the other's
 * snapshot; RPC endpoints and limits do not count. Order-independent.
 */
export const indexFingerprint = (registry: ChainRegistry): string =>
  createHash("sha256")
    .update(
      JSON.stringify([
        INDEX_FORMAT,
        [...registry.chains]
          .sort((a, b) => a.chain_id - b.chain_id)
          .map((chain) => [
            chain.chain_id,
            chain.protocols.map((p) => JSON.stringify(p)).sort(),
            (chain.factories ?? []).map((p) => JSON.stringify(p)).sort(),
            chain.wrapped_native ?? null,
            [...chain.stablecoins].sort(),
            [...chain.quote_tokens].sort(),
          ]),
      ]),
    )
    .digest("hex")
    .slice(0, 16);

/**
 * The fingerprint the index in this LevelDB was built under: `idx!fingerprint` -> string, part of
 * the index (cleared and restored with it). An index kept across a change of config or format is
 * still the old one's, whatever the process's fingerprint is now: only an index whose record
 * equals the process's is written as a snapshot (snapshotSchedule.ts). Recorded at start
 * (settleIndexFingerprint, restoreIndex.ts).
 */
export const INDEX_FINGERPRINT_KEY = `${PREFIX}fingerprint`;

/** The fingerprint recorded for the index in `db`, undefined when none is. */
export const recordedFingerprint = async (db: Db): Promise<string | undefined> =>
  (await db.get(INDEX_FINGERPRINT_KEY)) as string | undefined;
