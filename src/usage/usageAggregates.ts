import type { KV } from "@nats-io/kv";
import { Effect, Either } from "effect";
import type { UsageRecord } from "../domain/Usage.js";
import { kvCas } from "../nats/kvCas.js";

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
 * Read-modify-write of one aggregate with a revision check (`kvCas`), retried on conflict,
 * skipping the change when the entry already includes stream sequence `seq`. Rejects when the
 * bucket fails or keeps changing: the caller offers the record again.
 */
export const applyOnce = <A extends { readonly seq: number }>(
  kv: KV,
  key: string,
  empty: A,
  seq: number,
  change: (current: A) => A,
): Promise<void> =>
  Effect.runPromise(
    Effect.either(
      kvCas(
        kv,
        key,
        (entry) => {
          const current: A = entry === null ? empty : (entry.json() as A);
          return Either.right(
            current.seq >= seq
              ? { kind: "keep" as const, result: undefined }
              : { kind: "write" as const, value: JSON.stringify(change(current)), result: undefined },
          );
        },
        { maxAttempts: 20 },
      ),
    ),
  ).then((outcome) => {
    // A plain rejection for Promise callers, with the store's own words.
    if (Either.isLeft(outcome)) throw new Error(`usage aggregate: ${outcome.left.message}`);
  });
