import type { NatsConnection } from "@nats-io/transport-node";
import { percentile } from "./lib/stats.js";

/** Sequential request/reply round trips from Node for `seconds`: p50 and p99 in ms. */
export const natsRoundTrip = async (nc: NatsConnection, subject: string, seconds: number) => {
  const samples: Array<number> = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const start = performance.now();
    await nc.request(subject, "{}", { timeout: 5_000 });
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { p50Ms: percentile(samples, 50), p99Ms: percentile(samples, 99), count: samples.length };
};
