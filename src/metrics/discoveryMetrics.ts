import { Gauge, type Registry } from "prom-client";
import type { DiscoveryProgress } from "../discovery/DiscoveryProgress.js";

type Counts = ReadonlyMap<number, Readonly<Record<DiscoveryProgress["state"], number>>>;

/** The `state` label of each discovery state that has jobs: a closed set, so the series stay bounded. */
const STATES = ["sweeping", "scanning", "complete", "failed", "scan_failed"] as const;

/**
 * `wallet_discoveries{chain_id, chain, state}`: wallets this API worker has discovered per chain
 * and state (docs/real-chains.md), read from the discovery at scrape time.
 */
export const makeDiscoveryMetrics = (registry: Registry) => {
  let source: { readonly counts: () => Counts; readonly name: (chainId: number) => string } | undefined;
  new Gauge({
    name: "wallet_discoveries",
    help: "Wallets this API worker has discovered on the chain since it started, by discovery state.",
    labelNames: ["chain_id", "chain", "state"] as const,
    registers: [registry],
    collect() {
      this.reset();
      if (source === undefined) return;
      for (const [chainId, counts] of source.counts())
        for (const state of STATES)
          this.set({ chain_id: String(chainId), chain: source.name(chainId), state }, counts[state]);
    },
  });
  return (counts: () => Counts, name: (chainId: number) => string) => {
    source = { counts, name };
  };
};
