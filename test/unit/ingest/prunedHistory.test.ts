import { Effect, Logger, LogLevel, TestClock, TestContext } from "effect";
import { describe, expect, it } from "vitest";
import type { RpcRequest } from "../../../src/chains/rpc/RpcRequest.js";
import { makeHistoryKept } from "../../../src/ingest/prunedHistory.js";
import { fakeChainRpcOf } from "../../support/chainRpc.js";
import { down, keepsFrom } from "../../support/prunedFakeNodes.js";

const run = <A>(effect: Effect.Effect<A>) =>
  Effect.runPromise(
    effect.pipe(Logger.withMinimumLogLevel(LogLevel.None), Effect.provide(TestContext.TestContext)),
  );

/** A node that answers every receipts question with an empty list, pruned or not (some do). */
const answersEmpty = (_: ReadonlyArray<RpcRequest>) =>
  ({ kind: "answers", answers: [{ ok: true, result: [] }] }) as const;

describe("makeHistoryKept", () => {
  it("behavior: one endpoint's own figure is the skip; with several, only what every one of them pruned is skipped", async () => {
    expect(await run(makeHistoryKept(fakeChainRpcOf([keepsFrom(900)]))(100, 900, false))).toBe(900);
    // The lowest probed figure was 900, but the second endpoint keeps from 600.
    const two = fakeChainRpcOf([keepsFrom(900), keepsFrom(600)]);
    expect(await run(makeHistoryKept(two)(100, 900, false))).toBe(600);
    // One keeps the very first block: nothing is skipped, it is read.
    expect(await run(makeHistoryKept(fakeChainRpcOf([keepsFrom(900), keepsFrom(0)]))(100, 900, false))).toBe(
      100,
    );
  });

  it("behavior: an endpoint that says nothing holds the skip back for the hold, then is left out of it", () =>
    run(
      Effect.gen(function* () {
        const kept = makeHistoryKept(fakeChainRpcOf([keepsFrom(900), down]), 60_000);
        expect(yield* kept(100, 900, false)).toBeUndefined();
        yield* TestClock.adjust(59_000);
        expect(yield* kept(100, 900, true)).toBeUndefined();
        yield* TestClock.adjust(1_000);
        expect(yield* kept(100, 900, true)).toBe(900);
      }),
    ));

  it("behavior: an endpoint that says it keeps a block whose read was refused (it answers pruned receipts empty) is read from, then waited on, then left out", () =>
    run(
      Effect.gen(function* () {
        const kept = makeHistoryKept(fakeChainRpcOf([keepsFrom(900), answersEmpty]), 60_000);
        // Before any refusal its word is taken: the history is read.
        expect(yield* kept(100, 900, false)).toBe(100);
        // The read was refused: held back for the hold, then skipped to what the other keeps.
        expect(yield* kept(100, 900, true)).toBeUndefined();
        yield* TestClock.adjust(60_000);
        expect(yield* kept(100, 900, true)).toBe(900);
      }),
    ));

  it("behavior: an endpoint waited on for a whole hold is left out of later skips, while the pruned node's window moves on", () =>
    run(
      Effect.gen(function* () {
        let window = 900;
        const pruned = (requests: ReadonlyArray<RpcRequest>) => keepsFrom(window)(requests);
        const kept = makeHistoryKept(fakeChainRpcOf([pruned, down]), 60_000);
        expect(yield* kept(100, 900, true)).toBeUndefined();
        yield* TestClock.adjust(60_000);
        expect(yield* kept(100, 900, true)).toBe(900);
        // Block 900 was pruned before it was read: the skip goes on at once, not after another hold.
        window = 950;
        expect(yield* kept(900, 1_000, true)).toBe(950);
      }),
    ));

  it("behavior: when no endpoint says the block is gone (all down, or refusals of another kind), nothing is ever skipped", () =>
    run(
      Effect.gen(function* () {
        const silent = makeHistoryKept(fakeChainRpcOf([down, down]), 60_000);
        const claiming = makeHistoryKept(fakeChainRpcOf([answersEmpty, answersEmpty]), 60_000);
        for (const kept of [silent, claiming]) {
          expect(yield* kept(100, 900, true)).toBeUndefined();
          yield* TestClock.adjust(600_000);
          expect(yield* kept(100, 900, true)).toBeUndefined();
        }
      }),
    ));
});
