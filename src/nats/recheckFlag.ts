import type { ConsumerMessages } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect, type Scope } from "effect";

/**
 * Whether a consumer may have been looked up again by name since the last time this was asked,
 * with `watch` adding the signs of one consume loop to those of the connection.
 */
export interface RecheckFlag {
  readonly since: () => boolean;
  readonly watch: (messages: ConsumerMessages) => Effect.Effect<void, never, Scope.Scope>;
}

/** Sets `flag` for each item of `items` that `counts`, for the life of the scope; the iterator is stopped with it. */
const noting = <A>(items: AsyncIterable<A>, counts: (item: A) => boolean, flag: () => void) =>
  Effect.acquireRelease(
    Effect.sync(() => items),
    // Typed as plain iterables, both are the client's queued iterators, which end on `stop`.
    (iterable) => Effect.sync(() => (iterable as { stop?: () => void }).stop?.()),
  ).pipe(
    Effect.flatMap((iterable) =>
      Effect.forkScoped(
        Effect.promise(async () => {
          for await (const item of iterable) if (counts(item)) flag();
        }),
      ),
    ),
    Effect.asVoid,
  );

/**
 * Notes, for the life of the scope, each time the client may have started pulling from another
 * consumer of the same name without saying so: nats.js looks a consumer up again by name, and
 * pulls from whatever it finds, after the client reconnects (what the server sent meanwhile, a
 * deletion say, never reached it) and after two heartbeats are missed (a consumer's leader lost).
 * A caller that must consume from the very consumer it started with asks this before trusting the
 * next message, and checks the consumer again when the answer is yes.
 */
export const recheckFlag = (nc: NatsConnection): Effect.Effect<RecheckFlag, never, Scope.Scope> =>
  Effect.gen(function* () {
    let raised = false;
    const raise = () => {
      raised = true;
    };
    yield* noting(nc.status(), (status) => status.type === "disconnect", raise);
    return {
      since: () => {
        const was = raised;
        raised = false;
        return was;
      },
      watch: (messages) => noting(messages.status(), (status) => status.type === "heartbeats_missed", raise),
    };
  });
