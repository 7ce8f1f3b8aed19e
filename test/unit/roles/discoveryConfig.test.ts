import { describe, expect, it } from "vitest";
import { discoverySettings } from "../../../src/discovery/Discovery.js";
import { DISCOVERY_DEFAULTS } from "../../../src/discovery/WalletDiscovery.js";
import { discoveryConfig } from "../../../src/roles/discoveryConfig.js";

describe("discoveryConfig", () => {
  it("behavior: the operator's resweep hours, universe cap and queue limits reach the API worker's discovery, each in its place; every other setting keeps its default", () => {
    const settings = discoverySettings(
      discoveryConfig({
        discoveryResweepHours: 2,
        discoveryUniverseMax: 1_234,
        discoverySweepQueueMax: 5,
        discoveryScanQueueMax: 7,
      }),
    );
    expect(settings).toEqual({
      ...DISCOVERY_DEFAULTS,
      resweepMs: 7_200_000,
      universeMax: 1_234,
      sweepQueueMax: 5,
      scanQueueMax: 7,
    });
  });
});
