import { discoveryRecordPrefix } from "../indexer/indexKeys.js";

/**
 * What discovery has done for one wallet on one chain, kept in LevelDB so a restart resumes
 * instead of starting over: `idx!ds!<chain>!<wallet>` -> DiscoveryRecord. Not a view (not in
 * VIEW_PREFIXES): it records work done, not what the chain holds.
 */
export interface DiscoveryRecord {
  /** Block the wallet was last swept and its positions read at, and when that sweep began (ms since the epoch). */
  readonly swept_block?: number;
  readonly swept_at?: number;
  /**
   * The wallet's transfer-log scan of the history the index lacks, newest first: blocks
   * `from`..`to`, of which `below`..`to` are done (`below === from` when finished).
   */
  readonly scan?: { readonly from: number; readonly to: number; readonly below: number };
  /**
   * Set when the sweep ran before the chain's registry backfill was done: the pools and markets it
   * reads later widen the universe, so the wallet is swept again once it is.
   */
  readonly registry_pending?: true;
  /** What the sweep found it could not read in full (a universe over its cap, a finder's cap). */
  readonly truncated?: ReadonlyArray<string>;
  /**
   * What the log scan could not keep in full (stretches that moved more tokens than a stretch
   * keeps): apart from the sweep's, since a resweep does not read the history again.
   */
  readonly scan_truncated?: ReadonlyArray<string>;
}

export const discoveryRecordKey = (chainId: number, wallet: string) =>
  `${discoveryRecordPrefix(chainId)}${wallet}`;
