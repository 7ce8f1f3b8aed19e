import { describe, expect, it } from "vitest";
import { makeMetrics } from "../../../src/metrics/Metrics.js";
import { hasSample, parseSamples, sampleValue } from "../../support/prometheusText.js";

describe("process metrics", () => {
  it("behavior: two services in one process both expose the process's CPU, memory and event-loop lag, collected once, and keep their own counters apart", async () => {
    const first = makeMetrics({ teams: [] });
    const second = makeMetrics({ teams: [] });
    first.observeHttp("/v1/evm/balances/{address}", "GET", 200, 0.01);
    const [a, b] = await Promise.all(
      [first, second].map(async (m) => parseSamples(await m.registry.metrics())),
    );
    for (const samples of [a!, b!]) {
      expect(hasSample(samples, "svc_process_cpu_user_seconds_total")).toBe(true);
      expect(sampleValue(samples, "svc_process_resident_memory_bytes")).toBeGreaterThan(0);
      expect(hasSample(samples, "svc_nodejs_eventloop_lag_seconds")).toBe(true);
    }
    // One collection (its GC observer and event-loop monitor run for the process's life), not one per service.
    expect(second.registry.getSingleMetric("svc_nodejs_eventloop_lag_seconds")).toBe(
      first.registry.getSingleMetric("svc_nodejs_eventloop_lag_seconds"),
    );
    expect(sampleValue(a!, "svc_http_requests_total")).toBe(1);
    expect(sampleValue(b!, "svc_http_requests_total")).toBe(0);
  });
});
