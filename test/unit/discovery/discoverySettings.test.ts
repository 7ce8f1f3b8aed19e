import { describe, expect, it } from "vitest";
import { discoverySettings } from "../../../src/discovery/Discovery.js";
import { DISCOVERY_DEFAULTS } from "../../../src/discovery/WalletDiscovery.js";

describe("discoverySettings", () => {
  it("behavior: an operator's resweep time, universe cap and queue limits reach discovery; every other setting keeps its default", () => {
    const settings = discoverySettings({
      resweepMs: 3_600_000,
      universeMax: 1_234,
      sweepQueueMax: 5,
      scanQueueMax: 7,
    });
    expect(settings).toEqual({
      ...DISCOVERY_DEFAULTS,
      resweepMs: 3_600_000,
      universeMax: 1_234,
      sweepQueueMax: 5,
      scanQueueMax: 7,
    });
    expect(settings.sweepQueueMax).not.toBe(DISCOVERY_DEFAULTS.sweepQueueMax);
    expect(settings.scanQueueMax).not.toBe(DISCOVERY_DEFAULTS.scanQueueMax);
  });
});
