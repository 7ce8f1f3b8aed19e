/**
 * How far one wallet's discovery on one chain is, as answers report it:
 * - `not_needed`: the index holds the chain's whole history;
 * - `not_started`: nothing asked for this wallet on this chain yet (in this process);
 * - `sweeping`: its token universe and positions are being read;
 * - `scanning`: swept; its transfer logs over the history the index lacks are being read;
 * - `complete`: both done;
 * - `failed`: the sweep failed (tried again on a later request); `scan_failed`: swept, the scan failed.
 */
export interface DiscoveryProgress {
  readonly state:
    | "not_needed"
    | "not_started"
    | "sweeping"
    | "scanning"
    | "complete"
    | "failed"
    | "scan_failed";
  /** Block the wallet was swept at. */
  readonly swept_block?: number;
  /** The log scan: blocks `from`..`to`, done from `below` up. */
  readonly scan?: { readonly from: number; readonly to: number; readonly below: number };
  /** The log scan waits for its turn, behind other wallets' scans (a webhook's, on an archive chain: minutes). */
  readonly scan_queued?: boolean;
  /** The chain's registry backfill while it runs: blocks `from`..`to`, read up to `next`. */
  readonly registry?: { readonly from: number; readonly to: number; readonly next: number };
  readonly error?: string;
  /** What a finder read less of than there was (a cap), for the answer's warning. */
  readonly truncated?: ReadonlyArray<string>;
  /**
   * The index holds the chain's history from its first block, with no gap: the wallet is
   * discovered only because chain events were missed (on this chain or another), and no history
   * waits on the nodes' logs, however few they keep.
   */
  readonly history_indexed?: true;
}
