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
  /** Per V8 heap space: [used, reserved] bytes. */
  readonly spaces: Readonly<Record<string, readonly [number, number]>>;
}

/** A sample as the service prints it: its own clock time instead of `t`. */
type RawSample = Omit<MemorySample, "t"> & { readonly at: number };

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

const meanRss = (samples: ReadonlyArray<MemorySample>) =>
  samples.length === 0 ? Number.NaN : samples.reduce((a, s) => a + s.rss, 0) / samples.length;

/**
 * RSS growth during warm-up and after it, from means over quarters of the run,
 * because single samples swing by tens of MB with each garbage collection:
 * warm-up growth is the mean of the second quarter minus the baseline (the last
 * sample before the load), growth after warm-up the mean of the last quarter
 * minus that of the second. "Stops growing" means the growth after warm-up is at
 * most a tenth of the warm-up's, or at most 10 MB.
 */
export const rssVerdict = (curve: ReadonlyArray<MemorySample>, seconds: number) => {
  const baseline = curve.find((s) => s.t < 0) ?? curve[0]!;
  // Half-open, so the samples right after the forced collections at the middle and the end
  // (which drop RSS for a moment) fall outside the second and the last quarter.
  const quarter = (n: number) =>
    curve.filter((s) => s.t >= ((n - 1) * seconds) / 4 && s.t < (n * seconds) / 4);
  const warm = meanRss(quarter(2));
  const last = meanRss(quarter(4));
  const warmUpBytes = warm - baseline.rss;
  const afterBytes = last - warm;
  const peak = (from: number, to: number) =>
    Math.max(...curve.filter((s) => s.t >= from && s.t <= to).map((s) => s.rss));
  return {
    warmUpBytes,
    afterBytes,
    peakFirstHalf: peak(0, seconds / 2),
    peakSecondHalf: peak(seconds / 2, seconds - 1),
    flat: afterBytes <= Math.max(10 * MB, warmUpBytes / 10),
  };
};

/** The curve as table rows: seconds, RSS, heap used, heap total, external (MB). */
export const curveTable = (curve: ReadonlyArray<MemorySample>): ReadonlyArray<string> => [
  "   t s |  RSS MB | heap used | heap total | external",
  ...curve.map(
    (s) =>
      `${s.t.toFixed(0).padStart(6)} | ${mb(s.rss).padStart(7)} | ${mb(s.heapUsed).padStart(9)} | ${mb(s.heapTotal).padStart(10)} | ${mb(s.external).padStart(8)}`,
  ),
];

/** The largest V8 heap spaces of a sample as "name used/reserved MB". */
export const spacesLine = (sample: MemorySample) =>
  Object.entries(sample.spaces)
    .filter(([, [, size]]) => size >= 1024 * 1024)
    .sort((a, b) => b[1][1] - a[1][1])
    .map(([name, [used, size]]) => `${name.replace(/_space$/, "")} ${mb(used)}/${mb(size)}`)
    .join(", ");
