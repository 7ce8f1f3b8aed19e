import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * The benchmark service (bench/servers/service.ts) with its memory reported on
 * stdout, for the soak benchmark: a `mem {...}` line every BENCH_MEMORY_EVERY_MS,
 * and on SIGUSR2 a full garbage collection followed by a `gc {...}` line, whose
 * heap figure is what is really alive (the periodic samples also count garbage
 * V8 has not collected yet).
 */
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;

const sample = () => {
  const usage = process.memoryUsage();
  const heap = getHeapStatistics();
  return {
    at: Date.now(),
    rss: usage.rss,
    heapUsed: usage.heapUsed,
    heapTotal: usage.heapTotal,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    heapLimit: heap.heap_size_limit,
    /** Bytes used and reserved per V8 heap space (new, old, code, large objects ...). */
    spaces: Object.fromEntries(
      getHeapSpaceStatistics().map((space) => [space.space_name, [space.space_used_size, space.space_size]]),
    ),
  };
};

const report = (tag: string) => process.stdout.write(`${tag} ${JSON.stringify(sample())}\n`);

await import("./service.js");
setInterval(() => report("mem"), Number(process.env.BENCH_MEMORY_EVERY_MS ?? 5_000)).unref();
process.on("SIGUSR2", () => {
  // Twice: the first pass may only finalise what the second then frees.
  collect();
  collect();
  report("gc");
});
