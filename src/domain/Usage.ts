import { Schema } from "effect";

/**
 * Compute units and request counts of one (team, key, endpoint) in one UTC hour,
 * as published to the USAGE stream. Workers pre-aggregate for a fraction of a
 * second before publishing, so one record may stand for many requests.
 */
export class UsageRecord extends Schema.Class<UsageRecord>("UsageRecord")({
  /** UTC hour, `YYYYMMDDHH`. */
  hour: Schema.String.pipe(Schema.pattern(/^\d{10}$/)),
  team_id: Schema.String,
  /** API key id, or `webhooks` for delivered-event charges. */
  key_id: Schema.String,
  /** operationId of the endpoint (e.g. `getBalances`). */
  endpoint: Schema.String,
  requests: Schema.NonNegativeInt,
  /** Requests that ended in a 4xx or 5xx (they cost 0 CU). */
  errors: Schema.NonNegativeInt,
  cu: Schema.NonNegative,
}) {}

/** One row of the usage aggregates returned to operators. */
export class UsageRow extends Schema.Class<UsageRow>("UsageRow")({
  hour: Schema.String,
  team_id: Schema.String,
  key_id: Schema.String,
  endpoint: Schema.String,
  requests: Schema.Number,
  errors: Schema.Number,
  cu: Schema.Number,
}) {}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

/** `YYYYMMDDHH` of a time, UTC: sorts in time order as a string. */
export const hourKey = (ms: number): string => {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCDate(), 2)}${pad(d.getUTCHours(), 2)}`;
};

/** `YYYYMM` of a time, UTC. */
export const monthKey = (ms: number): string => hourKey(ms).slice(0, 6);

/** Start (ms) of the hour named by an hour key. */
export const hourStart = (key: string): number =>
  Date.UTC(
    Number(key.slice(0, 4)),
    Number(key.slice(4, 6)) - 1,
    Number(key.slice(6, 8)),
    Number(key.slice(8, 10)),
  );
