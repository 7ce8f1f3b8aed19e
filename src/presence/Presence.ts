import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { Context, Effect, Layer, Schema } from "effect";
import type { Role } from "../domain/Role.js";
import { mirrorBucket } from "../nats/mirrorBucket.js";
import { WATCH_CHECK_MS } from "../nats/WatchProgress.js";

/** How often each role instance says it is alive, and how long one silence counts. */
export const HEARTBEAT_MS = 5_000;
export const LIVE_FOR_MS = 15_000;

/** What a heartbeat says, stored under `<role>.<instance>` in the `presence` bucket. */
const Heartbeat = Schema.Struct({
  role: Schema.String,
  instance: Schema.String,
  host: Schema.String,
  pid: Schema.Number,
  /** The sender's ISO time (for people; liveness uses the broker's store time). */
  at: Schema.String,
});
const HeartbeatJson = Schema.parseJson(Heartbeat);
const encodeHeartbeat = Schema.encodeSync(HeartbeatJson);

/**
 * Sends this process's heartbeat for `role` to the `presence` bucket as a plain
 * publish on `$KV.presence.<role>.<instance>` (every role may do that, even one
 * without JetStream API permissions), until the scope closes.
 */
export const heartbeat = (nc: NatsConnection, role: Role) =>
  Effect.gen(function* () {
    const instance = randomUUID();
    const beat = Effect.sync(() =>
      nc.publish(
        `$KV.presence.${role}.${instance}`,
        encodeHeartbeat({ role, instance, host: hostname(), pid: process.pid, at: new Date().toISOString() }),
      ),
    );
    yield* beat;
    yield* Effect.forkScoped(
      Effect.forever(Effect.sleep(`${HEARTBEAT_MS} millis`).pipe(Effect.zipRight(beat))),
    );
  });

/** Live instances per role, from the heartbeats seen in the last LIVE_FOR_MS. */
export class Presence extends Context.Tag("app/presence/Presence")<
  Presence,
  { readonly liveInstances: () => Readonly<Record<string, number>> }
>() {}

export const layer = (
  presence: KV,
  now: () => number = Date.now,
  /** How often the watch is checked against the stream's leader (WatchProgress.ts). */
  watchCheckMs: number = WATCH_CHECK_MS,
): Layer.Layer<Presence> =>
  Layer.scoped(
    Presence,
    Effect.gen(function* () {
      // A stalled watch would show every other process's heartbeats ageing out, as if this one were
      // alone. A new watch replays the live heartbeats; keys that expired meanwhile stay in the map,
      // older than any cutoff, so the count is exact.
      const beats = yield* mirrorBucket(presence, {
        key: ">",
        decode: HeartbeatJson,
        stallCheckMs: watchCheckMs,
      });
      return {
        liveInstances: () => {
          const counts: Record<string, number> = {};
          const cutoff = now() - LIVE_FOR_MS;
          // The broker's store time, not the sender's clock: hosts' clocks may disagree.
          for (const beat of beats.entries()) {
            if (beat.created.getTime() < cutoff) continue;
            counts[beat.value.role] = (counts[beat.value.role] ?? 0) + 1;
          }
          return counts;
        },
      } as const;
    }),
  );
