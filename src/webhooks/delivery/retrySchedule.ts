/**
 * When a failed delivery is tried again. The default follows Svix and the
 * Standard Webhooks guidance: after the first attempt, retries 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h and 10 h later (8 attempts, the last about 27.5 h
 * after the first), each delay with ±20 % jitter so that many webhooks failing
 * together do not retry in lockstep.
 */
export const DEFAULT_RETRY_SCHEDULE_MS: ReadonlyArray<number> = [
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
];

/** The longest `Retry-After` honoured, in ms (1 hour): a receiver cannot park a delivery for days. */
export const RETRY_AFTER_CAP_MS = 3_600_000;

/** Jitter as a fraction of the delay, both ways. */
export const JITTER = 0.2;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * Parses `WEBHOOK_RETRY_SCHEDULE`: comma-separated delays with a unit
 * (`ms`, `s`, `m`, `h`), e.g. `5s,5m,30m,2h`. Returns the delays in ms, or
 * `undefined` when the text is not such a list (empty, no unit, over a week).
 */
export const parseRetrySchedule = (text: string): ReadonlyArray<number> | undefined => {
  const parts = text.split(",").map((s) => s.trim());
  const delays: Array<number> = [];
  for (const part of parts) {
    const match = /^(\d+)(ms|s|m|h)$/.exec(part);
    if (match === null) return undefined;
    const ms = Number(match[1]) * UNIT_MS[match[2]!]!;
    if (!Number.isSafeInteger(ms) || ms > 7 * 24 * 3_600_000) return undefined;
    delays.push(ms);
  }
  return delays.length === 0 || delays.length > 50 ? undefined : delays;
};

/**
 * The delay before retry number `retry` (1 = the first retry), or `undefined`
 * when the schedule is exhausted (dead-letter). `random` is in [0, 1).
 */
export const retryDelay = (
  schedule: ReadonlyArray<number>,
  retry: number,
  random: number,
): number | undefined => {
  const base = schedule[retry - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random));
};

/**
 * A `Retry-After` header in ms: delta seconds or an HTTP date (relative to
 * `now`), capped at RETRY_AFTER_CAP_MS; `undefined` when absent or garbage.
 */
export const parseRetryAfter = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1_000, RETRY_AFTER_CAP_MS);
  const date = Date.parse(text);
  if (Number.isNaN(date) || !/[a-z]/i.test(text)) return undefined;
  return Math.min(Math.max(0, date - now), RETRY_AFTER_CAP_MS);
};
