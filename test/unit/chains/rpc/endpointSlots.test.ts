import { Deferred, Effect, Fiber, TestClock, TestContext } from "effect";
import { describe, expect, it } from "vitest";
import { FairSlots } from "../../../../src/chains/rpc/fairSlots.js";
import type { ExchangeOutcome } from "../../../../src/chains/rpc/jsonRpcExchange.js";
import { RpcEndpoint } from "../../../../src/chains/rpc/RpcEndpoint.js";
import type { RpcRequest } from "../../../../src/chains/rpc/RpcRequest.js";

const answered: ExchangeOutcome = { kind: "answers", answers: [{ ok: true, result: "0x1" }] };

describe("an endpoint's connections", () => {
  it("behavior: a call waiting for a connection gets the next one free, before a call that comes after it", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const order: Array<string> = [];
        const gates = new Map<string, Deferred.Deferred<void>>();
        const endpoint = new RpcEndpoint(
          "http://node",
          { url: "http://node", maxConcurrency: 1, maxBatch: 10, timeoutMs: 10_000 },
          (requests: ReadonlyArray<RpcRequest>) =>
            Effect.gen(function* () {
              const name = requests[0]!.method;
              order.push(name);
              const gate = gates.get(name);
              if (gate !== undefined) yield* Deferred.await(gate);
              return answered;
            }),
          new FairSlots(1),
        );
        const call = (name: string) => endpoint.send([{ method: name, params: [] }], 10_000);
        const first = yield* Deferred.make<void>();
        gates.set("first", first);
        const holding = yield* Effect.fork(call("first"));
        yield* Effect.yieldNow();
        // The only connection is busy: this one waits in line.
        const waiting = yield* Effect.fork(call("waiting"));
        yield* Effect.yieldNow();
        expect(order).toEqual(["first"]);
        // The connection comes free, and a new call arrives at that very moment.
        yield* Deferred.succeed(first, undefined);
        yield* Fiber.join(holding);
        const late = yield* Effect.fork(call("late"));
        yield* Fiber.join(waiting);
        yield* Fiber.join(late);
        expect(order).toEqual(["first", "waiting", "late"]);
      }),
    ));

  it("behavior: an exchange sent after a wait for a connection gets what is left of the wait's time, and is not cut by it", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const given: Array<number> = [];
        const endpoint = new RpcEndpoint(
          "http://node",
          { url: "http://node", maxConcurrency: 1, maxBatch: 10, timeoutMs: 10_000 },
          (requests: ReadonlyArray<RpcRequest>, timeoutMs: number) =>
            Effect.gen(function* () {
              given.push(timeoutMs);
              // The first holds the connection 300 ms; the second takes 650 ms to answer.
              yield* Effect.sleep(requests[0]!.method === "first" ? 300 : 650);
              return answered;
            }),
          new FairSlots(1),
        );
        const first = yield* Effect.fork(endpoint.send([{ method: "first", params: [] }], 1_000));
        yield* Effect.yieldNow();
        const second = yield* Effect.fork(endpoint.send([{ method: "second", params: [] }], 1_000, 1_000));
        yield* Effect.yieldNow();
        yield* TestClock.adjust("300 millis");
        yield* Fiber.join(first);
        yield* TestClock.adjust("650 millis");
        const sent = yield* Fiber.join(second);
        // 300 ms went to the wait: the exchange had the other 700, and answered within them.
        expect(given).toEqual([1_000, 700]);
        expect(sent.givenMs).toBe(700);
        expect(sent.outcome).toEqual(answered);
      }).pipe(Effect.provide(TestContext.TestContext)),
    ));

  it("behavior: a call out of time in line is answered unsent, as a timeout given no time", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const slots = new FairSlots(1);
        const endpoint = new RpcEndpoint(
          "http://node",
          { url: "http://node", maxConcurrency: 1, maxBatch: 10, timeoutMs: 10_000 },
          () => Effect.as(Effect.sleep("1 second"), answered),
          slots,
        );
        const first = yield* Effect.fork(endpoint.send([{ method: "first", params: [] }], 1_000));
        yield* Effect.yieldNow();
        const second = yield* Effect.fork(endpoint.send([{ method: "second", params: [] }], 1_000, 200));
        yield* Effect.yieldNow();
        yield* TestClock.adjust("200 millis");
        const late = yield* Fiber.join(second);
        expect(late.givenMs).toBe(0);
        expect(late.outcome).toEqual({
          kind: "fault",
          fault: { reason: "Timeout", detail: "no free connection within 200 ms" },
        });
        expect(slots.waiting).toBe(0);
        yield* TestClock.adjust("800 millis");
        yield* Fiber.join(first);
        // The connection is back and free.
        expect(slots.tryTake()).toBe(true);
      }).pipe(Effect.provide(TestContext.TestContext)),
    ));

  it("behavior: a wait that runs out as the connection is handed to it passes it on; none is lost", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const slots = new FairSlots(1);
        const outcomes = new Set<string>();
        for (let round = 0; round < 50; round++) {
          expect(slots.tryTake()).toBe(true);
          const waiting = yield* Effect.fork(
            slots.withSlotWithin(10, Effect.succeed("ran"), () => "out of time"),
          );
          yield* Effect.yieldNow();
          // The connection comes back in the same instant the wait runs out.
          if (round % 2 === 0) slots.release();
          yield* TestClock.adjust("10 millis");
          if (round % 2 === 1) slots.release();
          outcomes.add(yield* Fiber.join(waiting));
          expect(slots.waiting).toBe(0);
          expect(slots.tryTake()).toBe(true);
          slots.release();
        }
        expect(outcomes.has("out of time")).toBe(true);
      }).pipe(Effect.provide(TestContext.TestContext)),
    ));

  it("behavior: a call that stops waiting (its budget spent) leaves the line, and the connection goes to the next", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const slots = new FairSlots(1);
        const got: Array<string> = [];
        const holder = yield* Deferred.make<void>();
        const hold = yield* Effect.fork(slots.withSlot(Deferred.await(holder)));
        yield* Effect.yieldNow();
        const impatient = yield* Effect.fork(slots.withSlot(Effect.sync(() => got.push("impatient"))));
        const patient = yield* Effect.fork(slots.withSlot(Effect.sync(() => got.push("patient"))));
        yield* Effect.yieldNow();
        expect(slots.waiting).toBe(2);
        yield* Fiber.interrupt(impatient);
        expect(slots.waiting).toBe(1);
        yield* Deferred.succeed(holder, undefined);
        yield* Fiber.join(hold);
        yield* Fiber.join(patient);
        expect(got).toEqual(["patient"]);
        // Every connection is back: one is free for whoever asks.
        expect(slots.tryTake()).toBe(true);
        expect(slots.tryTake()).toBe(false);
      }),
    ));

  it("behavior: a waiter interrupted as the connection is handed to it passes it on; none is lost", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const slots = new FairSlots(1);
        const got: Array<string> = [];
        for (let round = 0; round < 50; round++) {
          got.length = 0;
          expect(slots.tryTake()).toBe(true);
          const first = yield* Effect.fork(slots.withSlot(Effect.sync(() => got.push("first"))));
          const second = yield* Effect.fork(slots.withSlot(Effect.sync(() => got.push("second"))));
          yield* Effect.yieldNow();
          // Handed to the first in line, which is interrupted before (or after) it runs.
          slots.release();
          yield* Fiber.interrupt(first);
          yield* Fiber.join(second);
          expect(got.at(-1)).toBe("second");
          expect(slots.waiting).toBe(0);
          expect(slots.tryTake()).toBe(true);
          slots.release();
        }
      }),
    ));

  it("behavior: calls interrupted at any point, while waiting, taking or holding, give every connection back", () =>
    Effect.runPromise(
      Effect.gen(function* () {
        const slots = new FairSlots(2);
        for (let round = 0; round < 300; round++) {
          // Interrupted after a different number of turns each round: holding, waiting, or in between.
          const calls = yield* Effect.forEach([0, 1, 2, 3], () => Effect.fork(slots.withSlot(Effect.never)));
          for (let i = 0; i < round % 7; i++) yield* Effect.yieldNow();
          yield* Effect.forEach(calls, (call) => Fiber.interrupt(call));
          expect(slots.waiting).toBe(0);
          expect([slots.tryTake(), slots.tryTake(), slots.tryTake()]).toEqual([true, true, false]);
          slots.release();
          slots.release();
        }
      }),
    ));
});
