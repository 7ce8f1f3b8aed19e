import { hourKey } from "../src/domain/Usage.js";
import type { UsageRows } from "./AdminClient.js";

type Row = UsageRows[number];

export type Grouping = "team" | "key";

/** CU and requests of one team or key over the three windows the Usage screen shows. */
export interface UsageTotal {
  /** team_id, or key_id when grouped by key. */
  readonly id: string;
  readonly teamId: string;
  readonly cuHour: number;
  readonly cuDay: number;
  readonly cuMonth: number;
  readonly requestsDay: number;
  readonly errorsDay: number;
}

const HOUR_MS = 3_600_000;

/** The `YYYYMMDDHH` keys of the last `count` hours, oldest first, ending with the current hour. */
export const lastHours = (count: number, now: number): ReadonlyArray<string> =>
  Array.from({ length: count }, (_, i) => hourKey(now - (count - 1 - i) * HOUR_MS));

const groupOf = (row: Row, grouping: Grouping) => (grouping === "team" ? row.team_id : row.key_id);

/**
 * Totals per team or key, most CU in the last 24 hours first: `day` holds the
 * rows of the last 24 hours (read often), `older` those of the 29 days before
 * (read less often; any hour also in the last 24 is taken from `day`).
 */
export const usageTotals = (
  day: ReadonlyArray<Row>,
  older: ReadonlyArray<Row>,
  grouping: Grouping,
  now: number,
): ReadonlyArray<UsageTotal> => {
  const hours = new Set(lastHours(24, now));
  const current = hourKey(now);
  const totals = new Map<string, { -readonly [K in keyof UsageTotal]: UsageTotal[K] }>();
  const entry = (row: Row) => {
    const id = groupOf(row, grouping);
    const found = totals.get(id);
    if (found !== undefined) return found;
    const created = {
      id,
      teamId: row.team_id,
      cuHour: 0,
      cuDay: 0,
      cuMonth: 0,
      requestsDay: 0,
      errorsDay: 0,
    };
    totals.set(id, created);
    return created;
  };
  for (const row of day) {
    if (!hours.has(row.hour)) continue;
    const total = entry(row);
    total.cuDay += row.cu;
    total.cuMonth += row.cu;
    total.requestsDay += row.requests;
    total.errorsDay += row.errors;
    if (row.hour === current) total.cuHour += row.cu;
  }
  for (const row of older) if (!hours.has(row.hour)) entry(row).cuMonth += row.cu;
  return [...totals.values()].sort(
    (a, b) => b.cuDay - a.cuDay || b.cuMonth - a.cuMonth || a.id.localeCompare(b.id),
  );
};

/** One group's CU, requests and errors per endpoint over the last 24 hours, most CU first. */
export const endpointBreakdown = (day: ReadonlyArray<Row>, grouping: Grouping, id: string, now: number) => {
  const hours = new Set(lastHours(24, now));
  const byEndpoint = new Map<string, { cu: number; requests: number; errors: number }>();
  for (const row of day) {
    if (groupOf(row, grouping) !== id || !hours.has(row.hour)) continue;
    const e = byEndpoint.get(row.endpoint) ?? { cu: 0, requests: 0, errors: 0 };
    byEndpoint.set(row.endpoint, {
      cu: e.cu + row.cu,
      requests: e.requests + row.requests,
      errors: e.errors + row.errors,
    });
  }
  return [...byEndpoint.entries()]
    .map(([endpoint, e]) => ({ endpoint, ...e }))
    .sort((a, b) => b.cu - a.cu || b.requests - a.requests);
};

/** CU per hour over the last 24 hours, oldest first, for one group or (`id` undefined) everyone. */
export const hourlyCu = (
  day: ReadonlyArray<Row>,
  grouping: Grouping,
  id: string | undefined,
  now: number,
): ReadonlyArray<number> => {
  const hours = lastHours(24, now);
  const index = new Map(hours.map((h, i) => [h, i]));
  const values = hours.map(() => 0);
  for (const row of day) {
    const i = index.get(row.hour);
    if (i !== undefined && (id === undefined || groupOf(row, grouping) === id)) values[i]! += row.cu;
  }
  return values;
};
