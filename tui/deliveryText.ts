import type { DeliveryStats } from "./AdminClient.js";
import { age, duration } from "./format.js";

/** `200 45ms`: the last attempt's status (or `err` when no response came) and latency. */
export const lastAttempt = (stats: DeliveryStats): string =>
  stats.last_attempt_at === null
    ? "-"
    : `${stats.last_status ?? "err"} ${stats.last_latency_ms === null ? "" : `${Math.round(stats.last_latency_ms)}ms`}`.trim();

/** Whether a webhook needs a look: dead letters, retries, or a last attempt that failed. */
export const isFailing = (stats: DeliveryStats): boolean =>
  stats.dead_lettered > 0 ||
  stats.retrying > 0 ||
  (stats.last_attempt_at !== null && (stats.last_status === null || stats.last_status >= 300));

/** One line of counts, the last attempt and the next retry. */
export const deliverySummary = (stats: DeliveryStats, now = Date.now()): string =>
  [
    `${stats.delivered} delivered`,
    `${stats.failed} failed`,
    `${stats.retrying} retrying`,
    `${stats.dead_lettered} dead`,
    `last ${lastAttempt(stats)}${stats.last_attempt_at === null ? "" : ` ${age(stats.last_attempt_at, now)} ago`}`,
    ...(stats.next_attempt_at === null
      ? []
      : [`next retry in ${duration(Date.parse(stats.next_attempt_at) - now)}`]),
  ].join(" · ");

/** One recent attempt: when, retry index, status or error, latency. */
export const attemptLine = (attempt: DeliveryStats["recent_attempts"][number], now = Date.now()): string =>
  `${age(attempt.at, now).padStart(4)} ago  #${attempt.retry_index}  ${String(attempt.status ?? "---")}  ${Math.round(attempt.latency_ms)}ms  ${attempt.outcome}${attempt.error === null ? "" : `: ${attempt.error}`}`;
