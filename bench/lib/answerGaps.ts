import { percentile } from "./stats.js";

/**
 * The longest stretch of `from`..`to` (ms, one clock) in which none of `times` fell: how long a
 * client saw no answer at all. The bounds count as answers, so a window with none is one gap.
 */
export const longestGap = (times: ReadonlyArray<number>, from: number, to: number): number => {
  const inside = times.filter((t) => t >= from && t <= to).sort((a, b) => a - b);
  let longest = 0;
  let last = from;
  for (const t of [...inside, to]) {
    longest = Math.max(longest, t - last);
    last = t;
  }
  return longest;
};

/** "p50 3.1 ms, p99 12.0 ms" of durations in ms. */
export const describeLatency = (durations: ReadonlyArray<number>): string => {
  if (durations.length === 0) return "no samples";
  const sorted = [...durations].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms`;
};
