import type { KV } from "@nats-io/kv";
import { Context, Effect, Layer, Schema } from "effect";
import { Unavailable } from "../contracts/ApiError.js";
import { hourKey, hourStart, monthKey, UsageRow } from "../domain/Usage.js";
import { mirrorBucket } from "../nats/mirrorBucket.js";
import { WATCH_CHECK_MS } from "../nats/WatchProgress.js";
import type { HourAggregate, MonthAggregate } from "./usageAggregates.js";

/**
 * Read side of usage: month-to-date CU per team (mirrored from KV for the quota
 * check on every request) and hourly rows for operators.
 */
export class UsageBook extends Context.Tag("app/usage/UsageBook")<
  UsageBook,
  {
    /** CU the team has used this calendar month (UTC), as aggregated so far. */
    readonly monthToDate: (teamId: string) => number;
    /** Hourly rows from `fromMs` to `toMs` (inclusive hours), optionally for one team. */
    readonly rows: (
      fromMs: number,
      toMs: number,
      teamId?: string,
    ) => Effect.Effect<ReadonlyArray<UsageRow>, Unavailable>;
  }
>() {}

/** A stored `month.<YYYYMM>` aggregate (usageAggregates.ts). */
const MonthAggregateJson: Schema.Schema<MonthAggregate, string> = Schema.parseJson(
  Schema.Struct({ seq: Schema.Number, teams: Schema.Record({ key: Schema.String, value: Schema.Number }) }),
);

/** How often the month totals' watch is checked against the bucket's stream (followBucket.ts). */
const MONTH_WATCH_CHECK_MS = WATCH_CHECK_MS;

/** Longest range an operator can ask for at once: 31 days of hours. */
export const MAX_HOURS = 31 * 24;

export const layer = (usage: KV, now: () => number = Date.now): Layer.Layer<UsageBook> =>
  Layer.scoped(
    UsageBook,
    Effect.gen(function* () {
      // Checked for a stalled watch: after a nats-server was killed, the totals (and every quota check
      // that reads them) stayed at their old values for a minute while the bucket held the new ones.
      const months = yield* mirrorBucket(usage, {
        key: "month.>",
        decode: MonthAggregateJson,
        stallCheckMs: MONTH_WATCH_CHECK_MS,
      });

      // tryPromise: a bucket that cannot answer (a leader being elected) is a typed 503, not a defect.
      const rows = (fromMs: number, toMs: number, teamId?: string) =>
        Effect.tryPromise({
          catch: (cause) =>
            new Unavailable({
              code: "USAGE_UNAVAILABLE",
              message: `Usage cannot be read now; retry shortly (${cause instanceof Error ? cause.message : String(cause)}).`,
            }),
          try: async () => {
            const hours: Array<string> = [];
            for (let t = toMs; t >= fromMs && hours.length < MAX_HOURS; t -= 3_600_000)
              hours.push(hourKey(t));
            const entries = await Promise.all(hours.map((hour) => usage.get(`hour.${hour}`)));
            const result: Array<UsageRow> = [];
            entries.forEach((entry, i) => {
              if (entry === null || entry.operation !== "PUT") return;
              const aggregate = entry.json<HourAggregate>();
              for (const [key, row] of Object.entries(aggregate.rows)) {
                const [team_id = "", key_id = "", endpoint = ""] = key.split("|");
                if (teamId !== undefined && team_id !== teamId) continue;
                result.push(new UsageRow({ hour: hours[i]!, team_id, key_id, endpoint, ...row }));
              }
            });
            return result.sort((a, b) => hourStart(a.hour) - hourStart(b.hour));
          },
        });

      return {
        monthToDate: (teamId: string) => months.get(monthKey(now()))?.teams[teamId] ?? 0,
        rows,
      } as const;
    }),
  );
