import { Gauge, type Registry } from "prom-client";
import type { DiscoveryStateCounts } from "../discovery/discoveryCounts.js";
import type { BackfillProgress } from "../discovery/registryBackfill.js";
import { registryBackfillStatus } from "../discovery/registryBackfillStatus.js";

type Counts = ReadonlyMap<number, DiscoveryStateCounts>;

/**
 * The `state` label of each discovery state counted, and the state it reads: a closed set, so the
 * series stay bounded. `queued`: wallets a webhook started watching that wait for their turn;
 * `scan_queued`: wallets whose transfer history waits for a batch of log scans to read it.
 */
const STATES = [
  ["queued", "not_started"],
  ["sweeping", "sweeping"],
  ["scanning", "scanning"],
  ["scan_queued", "scan_queued"],
  ["complete", "complete"],
  ["failed", "failed"],
  ["scan_failed", "scan_failed"],
] as const;

/** What the discovery metrics read at scrape time. */
export interface DiscoverySource {
  readonly counts: () => Counts;
  readonly name: (chainId: number) => string;
  /** The chains, with each one's registry backfill where it has one (not on a whole-history chain). */
  readonly backfills: () => ReadonlyArray<{ readonly chainId: number; readonly progress?: BackfillProgress }>;
  /** On a chain indexed for discovered wallets only, how many wallets the index records; undefined on others. */
  readonly recordedWallets: (chainId: number) => number | undefined;
}

/**
 * `svc_wallet_discoveries{chain_id, chain, state}`: wallets this API worker has discovered, or has
 * queued for a webhook, per chain and state; `svc_registry_backfill_progress{chain_id, chain}`: the share of each chain's registry
 * backfill read, 1 once done; `svc_indexed_wallets{chain_id, chain}`: on a chain indexed for
 * discovered wallets only, the wallets its index records (docs/real-chains.md). Read at scrape time.
 */
export const makeDiscoveryMetrics = (registry: Registry) => {
  let source: DiscoverySource | undefined;
  new Gauge({
    name: "svc_wallet_discoveries",
    help: "Wallets this API worker has discovered on the chain since it started, by discovery state (queued: a webhook's, waiting for their turn).",
    labelNames: ["chain_id", "chain", "state"] as const,
    registers: [registry],
    collect() {
      this.reset();
      if (source === undefined) return;
      for (const [chainId, counts] of source.counts())
        for (const [state, read] of STATES)
          this.set({ chain_id: String(chainId), chain: source.name(chainId), state }, counts[read]);
    },
  });
  new Gauge({
    name: "svc_registry_backfill_progress",
    help: "Share of the chain's registry backfill (pools and markets created before the index's start) read, 1 once done.",
    labelNames: ["chain_id", "chain"] as const,
    registers: [registry],
    collect() {
      this.reset();
      if (source === undefined) return;
      for (const { chainId, progress } of source.backfills()) {
        const status = registryBackfillStatus(progress, undefined);
        if (status !== undefined)
          this.set({ chain_id: String(chainId), chain: source.name(chainId) }, status.fraction);
      }
    },
  });
  new Gauge({
    name: "svc_indexed_wallets",
    help: "On a chain indexed for discovered wallets only (index_wallets: discovered), how many wallets this API worker's index records token touches of.",
    labelNames: ["chain_id", "chain"] as const,
    registers: [registry],
    collect() {
      this.reset();
      if (source === undefined) return;
      for (const { chainId } of source.backfills()) {
        const recorded = source.recordedWallets(chainId);
        if (recorded !== undefined)
          this.set({ chain_id: String(chainId), chain: source.name(chainId) }, recorded);
      }
    },
  });
  return (watched: DiscoverySource) => {
    source = watched;
  };
};
