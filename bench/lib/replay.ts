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

/**
 * Times `count` rounds of replaying several raw JSON-RPC bodies at once, each against its own node, as a
 * request over several chains sends them: p50 and p99 of each round's wall time in ms.
 */
export const replayTogether = async (
  calls: ReadonlyArray<{ readonly url: string; readonly body: Buffer }>,
  count: number,
) => {
  const samples: Array<number> = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await Promise.all(
      calls.map(async ({ url, body }) => {
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        await res.arrayBuffer();
      }),
    );
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { p50Ms: percentile(samples, 50), p99Ms: percentile(samples, 99) };
};
