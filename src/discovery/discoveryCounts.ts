import type { DiscoveryProgress } from "./DiscoveryProgress.js";

/** A chain's discovered wallets as /healthz and the operator's chain list show them. */
export interface DiscoveryCounts {
  /** Wallets a webhook started watching that wait for their turn (at most 5 start a second). */
  readonly queued: number;
  readonly sweeping: number;
  readonly scanning: number;
  readonly complete: number;
  readonly failed: number;
}

/**
 * The chain's wallets by state, folded to five: a failed scan counts as failed, and `queued` is
 * the wallets without a job yet (a webhook's, waiting in line). Undefined where the index holds
 * the chain's whole history (`indexedFrom` 0): nothing to discover there.
 */
export const discoveryCounts = (
  counts: Readonly<Record<DiscoveryProgress["state"], number>> | undefined,
  indexedFrom: number | undefined,
): DiscoveryCounts | undefined =>
  indexedFrom === 0
    ? undefined
    : {
        queued: counts?.not_started ?? 0,
        sweeping: counts?.sweeping ?? 0,
        scanning: counts?.scanning ?? 0,
        complete: counts?.complete ?? 0,
        failed: (counts?.failed ?? 0) + (counts?.scan_failed ?? 0),
      };
