import { createHash } from "node:crypto";
import { type ChainConfig, protocolsOf } from "../chains/ChainsConfig.js";
import { hopsOf } from "./planPricing.js";

/**
 * What `idx!pl!<chain>!<token>` records: the registry's factories were asked for the token's
 * pools at `block` (the pools found, if any, are in the pool views). `registry` fingerprints what
 * was asked (`registryFingerprint`): a chains file that adds a factory, a stablecoin or a quote
 * token makes every marker stale, so pools the new entry knows are looked up too.
 */
export interface PoolLookupMarker {
  readonly block: number;
  readonly registry: string;
}

/**
 * A short hash of what a lookup asks: the pool factories (with V4 StateViews), the stablecoins
 * and the hops. Order-independent, so reordering the chains file changes nothing.
 */
export const registryFingerprint = (chain: ChainConfig): string => {
  const factories = protocolsOf(chain)
    .filter((p) => p.kind === "v2" || p.kind === "v3" || p.kind === "v4" || p.kind === "algebra")
    .map((p) => `${p.kind}:${p.address}:${p.state_view ?? ""}`)
    .sort();
  const text = [
    factories.join(","),
    [...chain.stablecoins].sort().join(","),
    [...hopsOf(chain)].sort().join(","),
  ].join(";");
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
};

/**
 * Whether a lookup at `marker.block` leaves nothing to ask for a read at block `at`, given that
 * the index holds every block from `indexedFrom` on (ingest status; undefined while unknown).
 * Pools are never destroyed, so the lookup found every pool created up to its block, and the
 * indexer records every pool created in the blocks it applies. So the marker serves when it is
 * at or above `at`, or when no block lies between it and the index's first block.
 *
 * That is the refresh policy: a marker never expires while the indexer follows the chain. It
 * goes stale after a gap, when the follower skipped history the nodes no longer kept and moved
 * `indexedFrom` past it, and a marker written for a past block (historical prices) below where
 * the index starts serves only reads at or below that block; the next lookup replaces it.
 */
export const markerServes = (
  marker: PoolLookupMarker | undefined,
  at: number,
  indexedFrom: number | undefined,
  registry: string,
): boolean => {
  if (marker === undefined || marker.registry !== registry) return false;
  return marker.block >= at || (indexedFrom !== undefined && marker.block >= indexedFrom - 1);
};
