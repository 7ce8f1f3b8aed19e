import { describe, expect, it } from "vitest";
import { EndpointHealth } from "../../../../src/chains/rpc/EndpointHealth.js";

const timeout = { reason: "Timeout" as const, detail: "no answer in time" };

describe("EndpointHealth", () => {
  it("behavior: failures while already left alone are one failure: a hang's concurrent timeouts do not stretch the pause", () => {
    const health = new EndpointHealth();
    health.failed(timeout, 1_000);
    for (let i = 0; i < 20; i++) health.failed(timeout, 1_500);
    expect(health.failures).toBe(1);
    expect(health.downUntil).toBe(2_000);
    expect(health.errors).toBe(21);
  });

  it("behavior: failing again once the pause is over doubles it, up to a minute; an answer ends it", () => {
    const health = new EndpointHealth();
    let now = 0;
    const pauses: Array<number> = [];
    for (let i = 0; i < 9; i++) {
      health.failed(timeout, now);
      pauses.push(health.downUntil - now);
      now = health.downUntil;
    }
    expect(pauses).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
    health.answered(5);
    expect(health.failures).toBe(0);
    expect(health.isDown(now)).toBe(false);
  });
});
