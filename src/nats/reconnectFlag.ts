import type { NatsConnection } from "@nats-io/transport-node";
import { Effect, type Scope } from "effect";

/** Whether the client lost its connection since the last time this was asked. */
export interface ReconnectFlag {
  readonly since: () => boolean;
}

/**
 * Notes, for the life of the scope, each time the client loses its connection. What the server
 * sent while the client was away never reaches it (a consumer's deletion, say), and nats.js, once
 * reconnected, checks only that a consumer of the same name exists before it pulls again: a
 * caller that must consume from the very consumer it started with asks this before trusting the
 * next message, and checks the consumer again when the answer is yes.
 */
export const reconnectFlag = (nc: NatsConnection): Effect.Effect<ReconnectFlag, never, Scope.Scope> =>
  Effect.gen(function* () {
    let lost = false;
    const statuses = yield* Effect.acquireRelease(
      Effect.sync(() => nc.status()),
      // Typed as a plain iterable, it is the client's queued iterator, which ends on `stop`.
      (iterable) => Effect.sync(() => (iterable as { stop?: () => void }).stop?.()),
    );
    yield* Effect.forkScoped(
      Effect.promise(async () => {
        for await (const status of statuses) if (status.type === "disconnect") lost = true;
      }),
    );
    return {
      since: () => {
        const was = lost;
        lost = false;
        return was;
      },
    };
  });
