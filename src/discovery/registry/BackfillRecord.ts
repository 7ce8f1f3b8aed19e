import { PREFIX } from "../../indexer/indexKeys.js";

/**
 * How far the registry backfill of one chain has got, kept in LevelDB in the same batch as the
 * views each step writes, so a restart resumes where the last written step ended and a crash
 * neither loses nor repeats a step's effect: `idx!rb!<chain>` -> BackfillRecord. Not a view (not
 * in VIEW_PREFIXES): it records work done, not what the chain holds.
 */
export interface BackfillRecord {
  /** The registry read (registrySources.ts `sourcesFingerprint`): another one starts the backfill over. */
  readonly sources: string;
  /** Blocks `from`..`to` are read for the registry's events; those below `next` are done. */
  readonly from: number;
  readonly to: number;
  readonly next: number;
  /** Registry logs read so far, over every run. */
  readonly logs: number;
  /**
   * Set once blocks of the range were left unread because the node stopped keeping their logs
   * before the backfill got to them (a pruned node's window moves up): the V2 enumeration then
   * lists every pair, not only those older than the first one the logs showed.
   */
  readonly gap?: boolean;
  /**
   * Per V2 factory, the `allPairsLength` its first `PairCreated` read in the range carried: pairs
   * with a lower index were created before the node's logs begin, and only they need `allPairs`.
   */
  readonly firstPairCount?: Readonly<Record<string, number>>;
  /**
   * Per V2 factory listed through `allPairs` (where the node keeps no logs for part of its history):
   * pairs `0..next-1` are done, out of `until` (the count to reach, fixed when the listing began),
   * listed at block `at` (their records' `created_block`: a listing cannot tell when a pair was made).
   */
  readonly pairs?: Readonly<
    Record<string, { readonly next: number; readonly until: number; readonly at: number }>
  >;
  /** Every part is done for blocks up to `to`. */
  readonly done?: boolean;
}

export const backfillRecordKey = (chainId: number) => `${PREFIX}rb!${String(chainId).padStart(12, "0")}`;
