import type { JsMsg } from "@nats-io/jetstream";
import { type Cause, Data, Effect, Schedule } from "effect";

/**
 * What becomes of a message a consumer handed out, as its handler decides (house style: handlers
 * answer a verdict; the runner settles it).
 */
export type Verdict = Data.TaggedEnum<{
  /** Done with; `confirmed`: acknowledged with a round trip, so it is known the server has it. */
  Ack: { readonly confirmed: boolean };
  /** Offered again after `afterMs` (a failure that may pass: a timeout, a leader election). */
  Nak: { readonly afterMs: number };
  /** Never to be offered again (no consumer could ever handle it). */
  Term: {};
  /** Taken, with nothing to acknowledge: an ordered consumer's message. */
  Read: {};
  /** Acknowledged as `Ack`, after which the run ends with `value`. */
  Finish: { readonly confirmed: boolean; readonly value: string };
}>;

const { Ack, Nak, Term, Read, Finish } = Data.taggedEnum<Verdict>();

export const Verdicts = {
  ack: Ack({ confirmed: false }),
  nak: (afterMs: number) => Nak({ afterMs }),
  term: Term(),
  read: Read(),
  /** Acknowledged with a round trip, then the run ends with `value`. */
  finish: (value: string) => Finish({ confirmed: true, value }),
} as const;

/** The consumer stopped handing out messages without an error (the client gave it up). */
export class ConsumerEnded extends Data.TaggedError("ConsumerEnded")<{ readonly consumer: string }> {
  override get message() {
    return `the ${this.consumer} consumer stopped handing out messages`;
  }
}

const settle = (message: JsMsg, verdict: Verdict): Effect.Effect<void, Cause.UnknownException> => {
  switch (verdict._tag) {
    case "Ack":
    case "Finish":
      return verdict.confirmed
        ? Effect.tryPromise(() => message.ackAck()).pipe(Effect.asVoid)
        : Effect.sync(() => message.ack());
    case "Nak":
      return Effect.sync(() => message.nak(verdict.afterMs));
    // No reason given: nats-server 2.9 does not know `+TERM <reason>` and would leave the message
    // pending, holding every message behind it.
    case "Term":
      return Effect.sync(() => message.term());
    case "Read":
      return Effect.void;
  }
};

/**
 * Hands the messages to `handle` one at a time, in order, and settles each as it answers. Ends
 * with the value of the first `Finish`; fails with the handler's error, or ConsumerEnded when the
 * messages end on their own.
 */
export const consumeEach = <E, R>(
  consumer: string,
  messages: AsyncIterable<JsMsg>,
  handle: (message: JsMsg) => Effect.Effect<Verdict, E, R>,
): Effect.Effect<string, E | ConsumerEnded | Cause.UnknownException, R> =>
  Effect.suspend(() => {
    const iterator = messages[Symbol.asyncIterator]();
    return Effect.gen(function* () {
      for (;;) {
        const next = yield* Effect.tryPromise(() => iterator.next());
        if (next.done === true) return yield* Effect.fail(new ConsumerEnded({ consumer }));
        const verdict = yield* handle(next.value);
        yield* settle(next.value, verdict);
        if (verdict._tag === "Finish") return verdict.value;
      }
    }).pipe(
      // Ended as a `for await` loop ends: the client's messages run what they queued for their
      // reader (closing them waits on it) only once their iterator was returned.
      Effect.ensuring(Effect.sync(() => void iterator.return?.(undefined)?.catch(() => undefined))),
    );
  });

/**
 * `run` for ever: after it fails, or dies of a defect, the reason is logged and it runs again a
 * second later. A consumer's loop must outlive its server's restarts and its own bugs alike: one
 * that stops stops the index, the usage totals or the webhooks for good.
 */
export const restarting =
  (what: string) =>
  <A, E, R>(run: Effect.Effect<A, E, R>): Effect.Effect<A, never, R> =>
    run.pipe(
      Effect.sandbox,
      Effect.tapError((cause) => Effect.logWarning(`${what} stopped; restarting`, cause)),
      Effect.retry(Schedule.spaced("1 second")),
      Effect.orDieWith(() => new Error("unreachable: retried for ever")),
    );
