import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { Context, Effect, Layer } from "effect";
import type { Role } from "../domain/Role.js";

/** How often each role instance says it is alive, and how long one silence counts. */
export const HEARTBEAT_MS = 5_000;
export const LIVE_FOR_MS = 15_000;

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
        JSON.stringify({ role, instance, host: hostname(), pid: process.pid, at: new Date().toISOString() }),
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

export const layer = (presence: KV, now: () => number = Date.now): Layer.Layer<Presence> =>
  Layer.scoped(
    Presence,
    Effect.gen(function* () {
      const lastSeen = new Map<string, number>();
      const watch = yield* Effect.promise(() => presence.watch({ key: ">" }));
      yield* Effect.addFinalizer(() => Effect.sync(() => watch.stop()));
      yield* Effect.forkScoped(
        Effect.promise(async () => {
          for await (const entry of watch) {
            if (entry.operation === "PUT") lastSeen.set(entry.key, entry.created.getTime());
            else lastSeen.delete(entry.key);
          }
        }),
      );
      return {
        liveInstances: () => {
          const counts: Record<string, number> = {};
          const cutoff = now() - LIVE_FOR_MS;
          for (const [key, at] of lastSeen) {
            if (at < cutoff) continue;
            const role = key.split(".")[0] ?? key;
            counts[role] = (counts[role] ?? 0) + 1;
          }
          return counts;
        },
      } as const;
    }),
  );
