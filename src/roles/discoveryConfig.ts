import type { AppSettings } from "../AppConfig.js";
import type { DiscoverySettingsIn } from "../discovery/Discovery.js";

/** The operator's discovery settings, as the API worker's discovery takes them. */
export const discoveryConfig = (
  config: Pick<
    AppSettings,
    "discoveryResweepHours" | "discoveryUniverseMax" | "discoverySweepQueueMax" | "discoveryScanQueueMax"
  >,
): DiscoverySettingsIn => ({
  resweepMs: config.discoveryResweepHours * 3600_000,
  universeMax: config.discoveryUniverseMax,
  sweepQueueMax: config.discoverySweepQueueMax,
  scanQueueMax: config.discoveryScanQueueMax,
});
