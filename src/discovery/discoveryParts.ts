import { Effect } from "effect";
import { POSITION_FINDERS } from "../positions/discovery/positionFinders.js";
import type { DiscoveryParts } from "./Discovery.js";

/**
 * The token lists and position finders discovery is built from, for the chains this process
 * serves.
 */
export const discoveryParts: Effect.Effect<DiscoveryParts> = Effect.succeed({
  universe: { listed: () => [] },
  finders: POSITION_FINDERS,
});
