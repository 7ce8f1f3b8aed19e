import { Effect } from "effect";
import type { DiscoveryParts } from "./Discovery.js";

/**
 * The token lists and position finders discovery is built from, for the chains this process
 * serves.
 */
export const discoveryParts: Effect.Effect<DiscoveryParts> = Effect.succeed({
  universe: { listed: () => [] },
  finders: {
    chain: [],
    wallet: [],
    nftContracts: () => new Set<string>(),
    nftIds: async () => ({ ops: [] }),
  },
});
