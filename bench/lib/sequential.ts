import { Agent, request } from "node:http";
import { percentile } from "./stats.js";

/**
 * One connection, one request at a time, for `seconds`: latency percentiles in ms
 * at sub-millisecond resolution (autocannon rounds to whole milliseconds).
 */
export const sequential = async (url: string, seconds: number, headers: Record<string, string> = {}) => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const req = request(url, { agent, headers }, (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 200 ? resolve(res.statusCode) : reject(new Error(`status ${res.statusCode}`)),
        );
      });
      req.on("error", reject);
      req.end();
    });
  const samples: Array<number> = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const start = performance.now();
    await once();
    samples.push(performance.now() - start);
  }
  agent.destroy();
  samples.sort((a, b) => a - b);
  return { p50Ms: percentile(samples, 50), p99Ms: percentile(samples, 99), count: samples.length };
};
