import { percentile } from "./stats.js";

/** Times `count` sequential replays of a raw JSON-RPC body against `url`: p50 and p99 in ms. */
export const replay = async (url: string, body: Buffer, count: number) => {
  const samples: Array<number> = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
    await res.arrayBuffer();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { p50Ms: percentile(samples, 50), p99Ms: percentile(samples, 99) };
};
