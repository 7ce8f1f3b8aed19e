/** Percentile of sorted samples (nearest rank). */
export const percentile = (sorted: ReadonlyArray<number>, p: number): number => {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
};

export const median = (values: ReadonlyArray<number>): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/** "median (min..max)" of repeated runs, for the report. */
export const spread = (values: ReadonlyArray<number>, digits = 2): string => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${median(sorted).toFixed(digits)} (${sorted[0]!.toFixed(digits)}..${sorted.at(-1)!.toFixed(digits)})`;
};
