import type { RegistryBackfillStatus } from "../contracts/RegistryBackfillStatus.js";
import type { BackfillProgress } from "./registryBackfill.js";

/**
 * A chain's registry backfill for /healthz, the admin chain list and the TUI; undefined where the
 * index holds the chain's whole history (`indexedFrom` 0: nothing to backfill) or none started.
 */
export const registryBackfillStatus = (
  progress: BackfillProgress | undefined,
  indexedFrom: number | undefined,
): RegistryBackfillStatus | undefined => {
  if (progress === undefined || indexedFrom === 0) return undefined;
  const span = progress.to - progress.from + 1;
  const fraction = progress.done
    ? 1
    : span <= 0
      ? 0
      : Math.min(1, Math.max(0, (progress.next - progress.from) / span));
  return {
    from: progress.from,
    to: progress.to,
    next: progress.next,
    fraction: Math.round(fraction * 1000) / 1000,
    logs: progress.logs,
    calls: progress.calls,
    done: progress.done,
    ...(progress.error === undefined ? {} : { error: progress.error }),
    ...(progress.retry_at === undefined ? {} : { retry_at: new Date(progress.retry_at).toISOString() }),
    ...(progress.waiting === undefined ? {} : { waiting: progress.waiting }),
    ...(progress.pairs === undefined ? {} : { pairs: progress.pairs }),
    ...(progress.unavailable === undefined ? {} : { unavailable: progress.unavailable }),
  };
};
