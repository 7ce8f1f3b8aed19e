import { Deferred, Effect, Fiber, Option, Runtime, TestClock, TestContext } from "effect";
import { describe, expect, it, vi } from "vitest";
import { ChainRpc } from "../../../../src/chains/rpc/ChainRpc.js";
import { ChainRpcError } from "../../../../src/chains/rpc/ChainRpcError.js";
import { FairSlots } from "../../../../src/chains/rpc/fairSlots.js";
import type { ExchangeOutcome } from "../../../../src/chains/rpc/jsonRpcExchange.js";
import { RpcEndpoint } from "../../../../src/chains/rpc/RpcEndpoint.js";
import { answers, makeRpc, no, ok, type Script, whole } from "../../../support/scriptedRpc.js";

/**
 * `ChainRpc.request`, the entry of Promise code (the read paths), and `ChainRpc.call` and `batch` from
 * Effect code (ingest, scans) send a call's first round without a fiber when it can go at once, and
 * go on in the Effect loop from whatever that round got. These check that the paths decide alike:
 * what the endpoints learn, where a refused call goes next, and that a call which cannot go at once
 * takes nothing on its way to the loop.
 */

/** A runtime on a test clock, with a way to move that clock until `pending` settles. */
const testRuntime = () => {
  const runtime = Effect.runSync(Effect.runtime<never>().pipe(Effect.provide(TestContext.TestContext)));
  const settle = async <A>(pending: Promise<A>): Promise<A> => {
    let done = false;
    const watched = pending.finally(() => {
      done = true;
    });
    watched.catch(() => undefined);
    for (let i = 0; i < 400 && !done; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      await Runtime.runPromise(runtime)(TestClock.adjust("50 millis"));
    }
    return watched;
  };
  return { runtime, settle };
};

const refused = { reason: "Unavailable", detail: "connection refused (ECONNREFUSED)" } as const;

describe("ChainRpc: calls from Promise code", () => {
  it("behavior: a call answered at once is one exchange, sent without the Effect loop, and the endpoint records its answer", async () => {
    const { rpc, sent } = makeRpc([(requests) => answers(requests.map(() => ok("0x2a")))]);
    const loopSends = vi.spyOn(rpc.endpoints[0]!, "send");
    await expect(rpc.request("eth_blockNumber", [])).resolves.toBe("0x2a");
    expect(sent()).toHaveLength(1);
    expect(loopSends).not.toHaveBeenCalled();
    const health = rpc.endpoints[0]!.health;
    expect(health.latencyMs).toBeDefined();
    // A head read teaches the endpoint its head, as on the Effect path.
    expect(health.head).toBe(42);
  });

  it("behavior: an unreachable primary hands the call to the fallback, is marked failing, and is left alone after", async () => {
    const { rpc, sent } = makeRpc([
      () => whole(refused),
      (requests) => answers(requests.map(() => ok("0x10"))),
    ]);
    await expect(rpc.request("eth_call", [])).resolves.toBe("0x10");
    await expect(rpc.request("eth_call", [])).resolves.toBe("0x10");
    expect(sent().map((s) => s.endpoint)).toEqual([0, 1, 1]);
    expect(rpc.endpoints[0]!.health.failures).toBe(1);
  });

  it("behavior: a revert fails at once with the node's reason, without trying the other endpoint", async () => {
    const { rpc, sent } = makeRpc([
      (requests) => answers(requests.map(() => no({ reason: "Rejected", detail: "execution reverted" }))),
      (requests) => answers(requests.map(() => ok("0x"))),
    ]);
    const failure = await rpc.request("eth_call", []).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ChainRpcError);
    expect((failure as ChainRpcError).reason).toBe("Rejected");
    expect(sent()).toHaveLength(1);
  });

  it("behavior: a 429 in the first answer pauses the endpoint for what it asked, and the call is answered after the pause", async () => {
    const { runtime, settle } = testRuntime();
    const script: Script = (_requests, exchange) =>
      exchange === 0
        ? whole({ reason: "RateLimited", detail: "HTTP 429", retryAfterMs: 2_000 })
        : answers([ok("0x1")]);
    const { rpc, sent } = makeRpc([script], { runtime });
    const loopSends = vi.spyOn(rpc.endpoints[0]!, "send");
    const startedAt = Runtime.runSync(runtime)(TestClock.currentTimeMillis);
    await expect(settle(rpc.request("eth_call", []))).resolves.toBe("0x1");
    expect(sent()).toHaveLength(2);
    // The refused first round was sent once, on the fast path; the loop sent only the second.
    expect(loopSends).toHaveBeenCalledTimes(1);
    expect(Runtime.runSync(runtime)(TestClock.currentTimeMillis) - startedAt).toBeGreaterThanOrEqual(2_000);
  });

  it("edge: a call that finds the only connection busy waits in line for it, and the connection is never lost", async () => {
    const { runtime, settle } = testRuntime();
    const gate = Effect.runSync(Deferred.make<void>());
    let exchanges = 0;
    const slots = new FairSlots(1);
    const endpoint = new RpcEndpoint(
      "http://node-0",
      { url: "http://node-0", maxConcurrency: 1, maxBatch: 10, timeoutMs: 60_000 },
      (): Effect.Effect<ExchangeOutcome> =>
        Effect.suspend(() => {
          exchanges++;
          return Effect.as(Deferred.await(gate), answers([ok(`0x${exchanges}`)]));
        }),
      slots,
    );
    const rpc = new ChainRpc(
      { chainId: 1, name: "ethereum", maxHeadLag: 5, maxLogsRange: 1_000 },
      [endpoint],
      runtime,
    );
    const first = rpc.request("eth_call", []);
    const second = rpc.request("eth_call", []);
    await new Promise((resolve) => setImmediate(resolve));
    expect(exchanges).toBe(1);
    expect(slots.waiting).toBe(1);
    Effect.runSync(Deferred.succeed(gate, undefined));
    await expect(settle(Promise.all([first, second]))).resolves.toEqual(["0x1", "0x2"]);
    // Both calls gave the connection back: it is free for the next.
    expect(slots.tryTake()).toBe(true);
  });

  it("edge: a call over the endpoint's rate waits for the budget without holding the connection meanwhile", async () => {
    const { runtime, settle } = testRuntime();
    const { rpc, sent } = makeRpc([(requests) => answers(requests.map(() => ok("0x1")))], {
      runtime,
      maxRps: 1,
      connections: 1,
    });
    const endpoint = rpc.endpoints[0]!;
    await expect(rpc.request("eth_call", [])).resolves.toBe("0x1");
    // The budget has no room for a second element this second: the call waits for it, in the loop.
    const loopSends = vi.spyOn(endpoint, "send");
    await expect(settle(rpc.request("eth_call", []))).resolves.toBe("0x1");
    expect(sent()).toHaveLength(2);
    expect(loopSends).toHaveBeenCalledTimes(1);
    // Its one connection is free again: the next call answered at once goes on the fast path.
    loopSends.mockClear();
    await expect(settle(rpc.request("eth_call", []))).resolves.toBe("0x1");
    expect(sent()).toHaveLength(3);
  });
});

describe("ChainRpc: calls from Effect code", () => {
  it("behavior: a call answered at once is one exchange, sent without the Effect loop, and the endpoint records its answer", async () => {
    const { rpc, sent } = makeRpc([(requests) => answers(requests.map(() => ok("0x2a")))]);
    const loopSends = vi.spyOn(rpc.endpoints[0]!, "send");
    await expect(Effect.runPromise(rpc.call("eth_blockNumber", []))).resolves.toBe("0x2a");
    expect(sent()).toHaveLength(1);
    expect(loopSends).not.toHaveBeenCalled();
    expect(rpc.endpoints[0]!.health.head).toBe(42);
  });

  it("behavior: a 429 in the first round pauses the endpoint on the caller's clock, and the loop answers the call once that clock is past the pause", async () => {
    const script: Script = (_requests, exchange) =>
      exchange === 0
        ? whole({ reason: "RateLimited", detail: "HTTP 429", retryAfterMs: 2_000 })
        : answers([ok("0x1")]);
    // The client's runtime keeps the real clock; the caller's fiber runs on a test clock.
    const { rpc, sent } = makeRpc([script]);
    const loopSends = vi.spyOn(rpc.endpoints[0]!, "send");
    const settleScripts = Effect.promise(() => new Promise((resolve) => setImmediate(resolve)));
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        const fiber = yield* Effect.fork(rpc.call("eth_call", []));
        for (let i = 0; i < 5; i++) yield* settleScripts;
        yield* TestClock.adjust("1500 millis");
        for (let i = 0; i < 5; i++) yield* settleScripts;
        const early = yield* Fiber.poll(fiber);
        yield* TestClock.adjust("1 second");
        for (let i = 0; i < 5; i++) yield* settleScripts;
        return { early, result: yield* Fiber.join(fiber) };
      }).pipe(Effect.provide(TestContext.TestContext)),
    );
    expect(Option.isNone(outcome.early)).toBe(true);
    expect(outcome.result).toBe("0x1");
    expect(sent()).toHaveLength(2);
    // The refused first round went on the fast path; the loop sent only the second.
    expect(loopSends).toHaveBeenCalledTimes(1);
  });

  it("error: a 429 whose pause outlasts the call's budget on the caller's clock fails the call at once", async () => {
    const { rpc, sent } = makeRpc([
      () => whole({ reason: "RateLimited", detail: "HTTP 429", retryAfterMs: 2_000 }),
    ]);
    const failure = await Effect.runPromise(
      Effect.flip(rpc.call("eth_call", [], { budgetMs: 1_000 })).pipe(
        Effect.provide(TestContext.TestContext),
      ),
    );
    expect(failure).toBeInstanceOf(ChainRpcError);
    expect(failure.reason).toBe("RateLimited");
    expect(sent()).toHaveLength(1);
  });

  it("edge: a batch larger than the endpoint takes goes through the loop in chunks, answered in order", async () => {
    const { rpc, sent } = makeRpc([(requests) => answers(requests.map((_, i) => ok(`0x${i + 1}`)))], {
      maxBatch: 2,
    });
    const loopSends = vi.spyOn(rpc.endpoints[0]!, "send");
    const requests = Array.from({ length: 5 }, () => ({ method: "eth_call", params: [] }));
    await expect(Effect.runPromise(rpc.batch(requests))).resolves.toEqual([
      "0x1",
      "0x2",
      "0x1",
      "0x2",
      "0x1",
    ]);
    expect(sent()).toHaveLength(3);
    expect(loopSends).toHaveBeenCalledTimes(3);
  });
});
