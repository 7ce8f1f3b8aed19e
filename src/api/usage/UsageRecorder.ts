import { randomUUID } from "node:crypto";
import type { JetStreamClient } from "@nats-io/jetstream";
import { Context, Effect, Layer } from "effect";
import { hourKey, type UsageRecord } from "../../domain/Usage.js";

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
 * retry after a lost ack is not counted twice.
 */
export class UsageRecorder extends Context.Tag("app/api/usage/UsageRecorder")<
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
  let pending = new Map<string, Pending>();
  let retry: Array<Pending> = [];

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
    const batch = [...retry, ...pending.values()];
    pending = new Map();
    retry = [];
    const results = await Promise.allSettled(
      batch.map((entry) => {
        entry.msgId ??= `${instance}:${++sequence}`;
        return js.publish(`usage.${entry.record.team_id}`, JSON.stringify(entry.record), {
          msgID: entry.msgId,
        });
      }),
    );
    results.forEach((result, i) => {
      if (result.status === "rejected") retry.push(batch[i]!);
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
