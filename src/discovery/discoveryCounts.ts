import type { DiscoveryProgress } from "./DiscoveryProgress.js";

/**
 * A chain's discovery jobs by state, and `scan_queued`: jobs in their log scan that wait for a
 * batch to read it (WalletDiscovery's `stats`); those are not counted in `scanning`.
 */
export type DiscoveryStateCounts = Readonly<Record<DiscoveryProgress["state"] | "scan_queued", number>>;

/** A chain's discovered wallets as /healthz and the operator's chain list show them. */
export interface DiscoveryCounts {
  /** Wallets a webhook started watching that wait for their turn (at most 5 start a second on each chain). */
  readonly queued: number;
  readonly sweeping: number;
  /** Wallets whose transfer history is being read now. */
  readonly scanning: number;
  /** Wallets whose transfer history waits for a batch of log scans to read it. */
  readonly scan_queued: number;
  readonly complete: number;
  readonly failed: number;
}

/**
 * The chain's wallets by state, folded to six: a failed scan counts as failed, `queued` is the
 * wallets without a job yet (a webhook's, waiting in line), and `scan_queued` those whose log
 * scan waits for a batch. Undefined where the index holds
 * the chain's whole history (`indexedFrom` 0, every wallet recorded): nothing to discover there.
 */
export const discoveryCounts = (
  counts: DiscoveryStateCounts | undefined,
  indexedFrom: number | undefined,
  /** The index may lack wallets' touches since its start (IndexedWallets.partial): discovery runs there too. */
  partial = false,
): DiscoveryCounts | undefined =>
  indexedFrom === 0 && !partial
    ? undefined
    : {
        queued: counts?.not_started ?? 0,
        sweeping: counts?.sweeping ?? 0,
        scanning: counts?.scanning ?? 0,
        scan_queued: counts?.scan_queued ?? 0,
        complete: counts?.complete ?? 0,
        failed: (counts?.failed ?? 0) + (counts?.scan_failed ?? 0),
      };
