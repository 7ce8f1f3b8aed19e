import { Layer } from "effect";
import { Discovery } from "../../src/discovery/Discovery.js";

/** Discovery for a chain whose index holds its whole history: nothing to find, never a warning. */
export const noDiscovery = Layer.succeed(Discovery, {
  settle: async () => ({ state: "not_needed" }),
  hold: () => () => undefined,
  progress: () => ({ state: "not_needed" }),
  prefetch: () => 0,
  unprefetch: () => 0,
  prefetchQueued: () => 0,
  scansQueued: () => 0,
  registryProgress: () => undefined,
  version: () => 0,
  lastWrite: () => 0,
  settledGeneration: () => 0,
  tokensSince: () => [],
  tokensPending: () => [],
  stats: () => new Map(),
  indexTrimmed: () => undefined,
  indexGap: () => undefined,
});
