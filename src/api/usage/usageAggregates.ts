import type { KV } from "@nats-io/kv";
import type { UsageRecord } from "../../domain/Usage.js";
import { isRevisionConflict } from "../../nats/revisionConflict.js";

/**
 * Aggregates in the `usage` bucket:
 * - `hour.<YYYYMMDDHH>`: `{ seq, rows: { "<team>|<key>|<endpoint>": { requests, errors, cu } } }`
 * - `month.<YYYYMM>`:   `{ seq, teams: { "<team>": cu } }`
 * `seq` is the USAGE stream sequence last applied to the entry: a redelivered
 * record (after a crash between the write and the ack) is recognised and skipped.
 */
export interface HourAggregate {
  readonly seq: number;
  readonly rows: Record<string, { requests: number; errors: number; cu: number }>;
}

export interface MonthAggregate {
  readonly seq: number;
  readonly teams: Record<string, number>;
}

export const rowKey = (record: Pick<UsageRecord, "team_id" | "key_id" | "endpoint">) =>
  `${record.team_id}|${record.key_id}|${record.endpoint}`;

export const addToHour = (current: HourAggregate, record: UsageRecord, seq: number): HourAggregate => {
  const key = rowKey(record);
  const row = current.rows[key] ?? { requests: 0, errors: 0, cu: 0 };
  return {
    seq,
    rows: {
      ...current.rows,
      [key]: {
        requests: row.requests + record.requests,
        errors: row.errors + record.errors,
        cu: row.cu + record.cu,
      },
    },
  };
};

export const addToMonth = (current: MonthAggregate, record: UsageRecord, seq: number): MonthAggregate => ({
  seq,
  teams: { ...current.teams, [record.team_id]: (current.teams[record.team_id] ?? 0) + record.cu },
});

/**
 * Read-modify-write of one aggregate with a revision check, retried on conflict,
 * skipping the change when the entry already includes stream sequence `seq`.
 */
export const applyOnce = async <A extends { readonly seq: number }>(
  kv: KV,
  key: string,
  empty: A,
  seq: number,
  change: (current: A) => A,
): Promise<void> => {
  for (let attempt = 0; attempt < 20; attempt++) {
    const entry = await kv.get(key);
    const current: A = entry === null || entry.operation !== "PUT" ? empty : (entry.json() as A);
    if (current.seq >= seq) return;
    const next = JSON.stringify(change(current));
    try {
      if (entry === null) await kv.create(key, next);
      else await kv.update(key, next, entry.revision);
      return;
    } catch (error) {
      if (!isRevisionConflict(error)) throw error;
    }
  }
  throw new Error(`usage aggregate ${key} kept changing under 20 attempts`);
};
