import type { JsMsg } from "@nats-io/jetstream";
import { Effect, Exit, Fiber, Logger, LogLevel, TestClock, TestContext } from "effect";
import { describe, expect, it } from "vitest";
import { consumeEach, restarting, type Verdict, Verdicts } from "../../../src/nats/runConsumer.js";

/** A message that records how it was settled. */
const message = (seq: number, settled: Array<string>) =>
  ({
    seq,
    ack: () => settled.push(`${seq} ack`),
    ackAck: async () => {
      settled.push(`${seq} ackAck`);
      return true;
    },
    nak: (ms?: number) => settled.push(`${seq} nak ${ms}`),
    term: () => settled.push(`${seq} term`),
  }) as unknown as JsMsg;

const messagesOf = (messages: ReadonlyArray<JsMsg>) => ({
  async *[Symbol.asyncIterator]() {
    yield* messages;
  },
});

describe("consumeEach", () => {
  it("behavior: each message is settled as its handler answers, in order, and the run ends with the first finish", async () => {
    const settled: Array<string> = [];
    const verdicts: Record<number, Verdict> = {
      1: Verdicts.ack,
      2: Verdicts.nak(500),
      3: Verdicts.term,
      4: Verdicts.read,
      5: Verdicts.finish("idle"),
      6: Verdicts.ack,
    };
    const messages = [1, 2, 3, 4, 5, 6].map((seq) => message(seq, settled));
    const end = await Effect.runPromise(
      consumeEach("test", messagesOf(messages), (m) => Effect.succeed(verdicts[m.seq]!)),
    );
    expect(end).toBe("idle");
    expect(settled).toEqual(["1 ack", "2 nak 500", "3 term", "5 ackAck"]);
  });

  it("failure: messages that end on their own fail the run with ConsumerEnded; a failing handler leaves its message unsettled", async () => {
    const settled: Array<string> = [];
    const ended = await Effect.runPromiseExit(
      consumeEach("test", messagesOf([message(1, settled)]), () => Effect.succeed(Verdicts.ack)),
    );
    expect(Exit.isFailure(ended) && JSON.stringify(ended.cause)).toContain("ConsumerEnded");
    const failed = await Effect.runPromiseExit(
      consumeEach("test", messagesOf([message(2, settled)]), () => Effect.fail("storage down")),
    );
    expect(Exit.isFailure(failed)).toBe(true);
    expect(settled).toEqual(["1 ack"]);
  });
});

describe("consumeEach and the client's iterator", () => {
  it("behavior: the messages' iterator is returned when the run finishes or fails, as a for-await loop returns it (the client's close waits on that)", async () => {
    const returned: Array<string> = [];
    const iterable = (name: string) => ({
      [Symbol.asyncIterator]: () => {
        const inner = messagesOf([message(1, []), message(2, [])])[Symbol.asyncIterator]();
        return {
          next: () => inner.next(),
          return: async () => {
            returned.push(name);
            return { done: true as const, value: undefined };
          },
        };
      },
    });
    await Effect.runPromise(
      consumeEach("test", iterable("finished"), () => Effect.succeed(Verdicts.finish("idle"))),
    );
    await Effect.runPromiseExit(consumeEach("test", iterable("failed"), () => Effect.fail("storage down")));
    expect(returned).toEqual(["finished", "failed"]);
  });
});

describe("restarting", () => {
  it("behavior: a run that fails or dies of a defect runs again a second later, for ever", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        let runs = 0;
        const run = Effect.suspend(() => {
          runs++;
          return runs % 2 === 0 ? Effect.die(new Error("a bug")) : Effect.fail("server lost");
        });
        const fiber = yield* Effect.fork(restarting("test")(run));
        yield* TestClock.adjust("1 second");
        yield* TestClock.adjust("1 second");
        yield* TestClock.adjust("1 second");
        expect(runs).toBe(4);
        expect(fiber.unsafePoll()).toBeNull();
        yield* Fiber.interrupt(fiber);
      }).pipe(Effect.provide(TestContext.TestContext), Logger.withMinimumLogLevel(LogLevel.None)),
    ));
});
