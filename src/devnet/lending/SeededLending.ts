import type { ManifestLendingMarket, ManifestLendingPosition } from "../DevnetManifest.js";

/**
 * What the lending seeds of one chain produced, already in manifest shape: the markets they deployed and
 * the positions they opened. Each seed (Aave, cToken, Comet) returns one; {@link mergeLending} joins them.
 */
export interface SeededLending {
  readonly markets: readonly ManifestLendingMarket[];
  readonly positions: readonly ManifestLendingPosition[];
}

/** No lending on this chain. */
export const NO_LENDING: SeededLending = { markets: [], positions: [] };

/** The lending of one chain from every lending seed, in the order given. */
export const mergeLending = (...parts: readonly SeededLending[]): SeededLending => ({
  markets: parts.flatMap((part) => part.markets),
  positions: parts.flatMap((part) => part.positions),
});
