import { randomUUID } from "node:crypto";
import type { JetStreamClient } from "@nats-io/jetstream";
import { Context, Effect, Layer } from "effect";
import { hourKey, type UsageRecord } from "../domain/Usage.js";

/** What one finished request (or one delivered batch of webhook events) costs. */
export interface UsageEvent {
  readonly teamId: string;
  readonly keyId: string;
  readonly endpoint: string;
  readonly cu: number;
  readonly failed: boolean;
}

/**
 * Collects usage in memory and publishes it to the USAGE stream in small batches
 * (every `flushMs`), one record per (hour, team, key, endpoint). This keeps the
 * per-request cost to a map update, and the stream's volume proportional to the
 * number of active keys rather than to the request rate. Records that fail to
 * publish are kept and retried at the next flush; each carries a Nats-Msg-Id so a
 * retry after a lost ack is not counted twice. Through a broker outage memory
 * holds at most two records per (hour, team, key, endpoint).
 */
export class UsageRecorder extends Context.Tag("app/usage/UsageRecorder")<
  UsageRecorder,
  {
    readonly record: (event: UsageEvent) => void;
    /** Publishes everything pending now (used at shutdown and by tests). */
    readonly flush: Effect.Effect<void>;
  }
>() {}

interface Pending {
  readonly record: Omit<UsageRecord, "requests" | "errors" | "cu"> & {
    requests: number;
    errors: number;
    cu: number;
  };
  /** Message id assigned at the first publish attempt, reused on retries. */
  msgId?: string;
}

export const make = (js: JetStreamClient, now: () => number = Date.now) => {
  const instance = randomUUID();
  let sequence = 0;
  const pending = new Map<string, Pending>();
  /** Records whose publish failed, by the same id: at most one per id waits for a retry. */
  const retry = new Map<string, Pending>();

  const record = (event: UsageEvent) => {
    const hour = hourKey(now());
    const id = `${hour}|${event.teamId}|${event.keyId}|${event.endpoint}`;
    let entry = pending.get(id);
    if (entry === undefined) {
      entry = {
        record: {
          hour,
          team_id: event.teamId,
          key_id: event.keyId,
          endpoint: event.endpoint,
          requests: 0,
          errors: 0,
          cu: 0,
        },
      };
      pending.set(id, entry);
    }
    entry.record.requests += 1;
    if (event.failed) entry.record.errors += 1;
    entry.record.cu += event.cu;
  };

  const flush = Effect.promise(async () => {
    const batch = [...retry];
    const waiting = new Set(retry.keys());
    retry.clear();
    for (const [id, entry] of pending) {
      // While the id's earlier record waits for its retry, this one keeps counting
      // (it cannot be merged into that one: its message id may already be stored).
      // So an outage holds at most two records per id, however many flushes fail.
      if (waiting.has(id)) continue;
      batch.push([id, entry]);
      pending.delete(id);
    }
    const results = await Promise.allSettled(
      batch.map(([, entry]) => {
        entry.msgId ??= `${instance}:${++sequence}`;
        return js.publish(`usage.${entry.record.team_id}`, JSON.stringify(entry.record), {
          msgID: entry.msgId,
        });
      }),
    );
    results.forEach((result, i) => {
      if (result.status === "rejected") retry.set(batch[i]![0], batch[i]![1]);
    });
  });

  return { record, flush } as const;
};

export const layer = (js: JetStreamClient, flushMs = 250): Layer.Layer<UsageRecorder> =>
  Layer.scoped(
    UsageRecorder,
    Effect.gen(function* () {
      const recorder = make(js);
      yield* Effect.forkScoped(
        Effect.forever(Effect.sleep(`${flushMs} millis`).pipe(Effect.zipRight(recorder.flush))),
      );
      // Last flush on shutdown, after the workers have stopped taking requests.
      yield* Effect.addFinalizer(() => recorder.flush);
      return recorder;
    }),
  );
