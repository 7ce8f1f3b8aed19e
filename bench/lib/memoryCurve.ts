import type { Readable } from "node:stream";

/** One memory reading of the service process (bench/servers/soakService.ts prints them). */
export interface MemorySample {
  /** Seconds since the load started (negative: before it). */
  readonly t: number;
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly arrayBuffers: number;
}

interface RawSample {
  readonly at: number;
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly arrayBuffers: number;
}

/**
 * Collects the `mem {...}` (periodic) and `gc {...}` (after a forced full GC)
 * lines a soak service prints, timed from `start()`.
 */
export const memoryRecorder = (stdout: Readable) => {
  const periodic: Array<RawSample> = [];
  const afterGc: Array<RawSample> = [];
  const waiting: Array<(sample: MemorySample) => void> = [];
  let origin = Date.now();
  let partial = "";
  const toSample = (raw: RawSample): MemorySample => ({ ...raw, t: (raw.at - origin) / 1000 });
  stdout.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      const space = line.indexOf(" ");
      const tag = line.slice(0, space);
      if (tag !== "mem" && tag !== "gc") continue;
      const sample = JSON.parse(line.slice(space + 1)) as RawSample;
      if (tag === "mem") periodic.push(sample);
      else {
        afterGc.push(sample);
        waiting.shift()?.(toSample(sample));
      }
    }
  });
  return {
    /** Times later samples from now. */
    start: () => {
      origin = Date.now();
    },
    /** Periodic samples taken since `start()`, and the last one before it (the baseline). */
    curve: () => {
      const samples = periodic.map(toSample);
      return [...samples.filter((s) => s.t < 0).slice(-1), ...samples.filter((s) => s.t >= 0)];
    },
    /** Asks the process (pid) for a full GC and resolves with the sample taken right after it. */
    afterFullGc: (pid: number) =>
      new Promise<MemorySample>((resolve) => {
        waiting.push(resolve);
        process.kill(pid, "SIGUSR2");
      }),
    afterGc: () => afterGc.map(toSample),
  };
};

const MB = 1024 * 1024;
export const mb = (bytes: number) => (bytes / MB).toFixed(0);

/** Least-squares slope of RSS over the samples, in bytes per second. */
const slope = (samples: ReadonlyArray<MemorySample>): number => {
  if (samples.length < 2) return 0;
  const n = samples.length;
  const meanT = samples.reduce((a, s) => a + s.t, 0) / n;
  const meanR = samples.reduce((a, s) => a + s.rss, 0) / n;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.t - meanT) * (s.rss - meanR);
    den += (s.t - meanT) ** 2;
  }
  return den === 0 ? 0 : num / den;
};

/**
 * RSS growth in the first half of the run (warm-up) and in the second, each the
 * least-squares slope over that half times its length, so one GC's sawtooth at
 * either end does not decide the figure. "Stops growing" means the second half
 * grows by at most a tenth of the warm-up, or by at most 10 MB (noise).
 */
export const rssVerdict = (curve: ReadonlyArray<MemorySample>, seconds: number) => {
  const half = seconds / 2;
  const first = curve.filter((s) => s.t <= half);
  const second = curve.filter((s) => s.t >= half);
  const warmUp = slope(first) * half;
  const after = slope(second) * half;
  const flat = after <= Math.max(10 * MB, warmUp / 10);
  return { warmUpBytes: warmUp, afterBytes: after, afterMbPerMinute: (slope(second) * 60) / MB, flat };
};

/** The curve as table rows: seconds, RSS, heap used, heap total, external (MB). */
export const curveTable = (curve: ReadonlyArray<MemorySample>): ReadonlyArray<string> => [
  "   t s |  RSS MB | heap used | heap total | external",
  ...curve.map(
    (s) =>
      `${s.t.toFixed(0).padStart(6)} | ${mb(s.rss).padStart(7)} | ${mb(s.heapUsed).padStart(9)} | ${mb(s.heapTotal).padStart(10)} | ${mb(s.external).padStart(8)}`,
  ),
];
