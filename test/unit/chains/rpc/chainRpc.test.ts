import { Clock, Effect, Exit, Fiber, Random, Runtime, TestClock, TestContext } from "effect";
import { describe, expect, it } from "vitest";
import { monitorChain } from "../../../../src/chains/rpc/ChainMonitor.js";
import type { RpcFaultDetail } from "../../../../src/chains/rpc/ChainRpcError.js";
import { getLogs } from "../../../../src/chains/rpc/getLogs.js";
import { answers, makeRpc, no, ok, type Script, whole } from "../../../support/scriptedRpc.js";

/** `effect` run while the test clock moves forward 50 ms at a time, until it ends. */
const advancing = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(effect);
    for (let i = 0; i < 2_000; i++) {
      const done = yield* Fiber.poll(fiber);
      if (done._tag === "Some") return done.value;
      yield* TestClock.adjust("50 millis");
    }
    return yield* Fiber.await(fiber);
  });

/**
 * A test clock shared with a ChainRpc (`makeRpc`'s `runtime`). The client sends a call's first
 * exchange on its own runtime, without a fiber of the caller's: a hang or a wait for the rate
 * budget there takes test time only when that runtime's clock is the test's; on the live one it
 * took real seconds. `run` moves this clock forward until the effect ends.
 */
const sharedTestClock = () => {
  const runtime = Effect.runSync(
    Effect.runtime<never>().pipe(
      Effect.withRandom(Random.make("seed")),
      Effect.provide(TestContext.TestContext),
    ),
  );
  return {
    runtime,
    run: <A, E>(effect: Effect.Effect<A, E>) =>
      Runtime.runPromise(runtime)(advancing(effect)) as Promise<Exit.Exit<A, E>>,
  };
};

/** Runs `effect` on a test clock of its own, moving it forward until it ends. */
const onTestClock = <A, E>(effect: Effect.Effect<A, E>) => sharedTestClock().run(effect);

const refused: RpcFaultDetail = { reason: "Unavailable", detail: "connection refused (ECONNREFUSED)" };

describe("ChainRpc: connections", () => {
  it("behavior: a call that finds every connection busy waits for one within its budget, then fails as a timeout unsent", async () => {
    const clock = sharedTestClock();
    const { rpc, sent } = makeRpc([(_, exchange) => (exchange === 0 ? "hang" : answers([ok("0x1")]))], {
      connections: 1,
      timeoutMs: 10_000,
      runtime: clock.runtime,
    });
    const exits = await clock.run(
      Effect.all(
        [
          Effect.exit(rpc.call("eth_call", [], { budgetMs: 10_000 })),
          Effect.exit(
            Effect.zipRight(Effect.sleep("10 millis"), rpc.call("eth_call", [], { budgetMs: 500 })),
          ),
        ],
        { concurrency: "unbounded" },
      ),
    );
    const queued = Exit.isSuccess(exits) ? exits.value[1] : undefined;
    const error =
      queued !== undefined && Exit.isFailure(queued) && queued.cause._tag === "Fail"
        ? queued.cause.error
        : undefined;
    expect(error?.reason).toBe("Timeout");
    expect(error?.message).toMatch(/no free connection within 500 ms/);
    expect(sent()).toHaveLength(1);
  });

  it("behavior: a call that waits out a long budget in this process's own line leaves its endpoint in good standing", async () => {
    // The budget is long enough that a timeout of the node's own would mark it failing.
    const clock = sharedTestClock();
    const { rpc, sent } = makeRpc([(_, exchange) => (exchange === 0 ? "hang" : answers([ok("0x1")]))], {
      connections: 1,
      timeoutMs: 10_000,
      runtime: clock.runtime,
    });
    const health = rpc.endpoints[0]!.health;
    const exits = await clock.run(
      Effect.all(
        [
          Effect.exit(rpc.call("eth_call", [], { budgetMs: 10_000 })),
          Effect.zipRight(
            Effect.sleep("10 millis"),
            Effect.map(Effect.exit(rpc.call("eth_call", [], { budgetMs: 5_000 })), (exit) => ({
              exit,
              failures: health.failures,
              lastError: health.lastError,
            })),
          ),
        ],
        { concurrency: "unbounded" },
      ),
    );
    const queued = Exit.isSuccess(exits) ? exits.value[1] : undefined;
    expect(queued !== undefined && Exit.isFailure(queued.exit)).toBe(true);
    expect(String(queued?.exit)).toMatch(/no free connection within 5000 ms/);
    const failure = queued !== undefined && Exit.isFailure(queued.exit) ? queued.exit.cause : undefined;
    expect(failure?._tag === "Fail" && failure.error.unsent).toBe(true);
    // Nothing was sent for it, and nothing is held against the node: it is not left alone.
    expect(queued?.failures).toBe(0);
    expect(queued?.lastError).toBeUndefined();
    expect(sent()).toHaveLength(1);
  });

  it("behavior: calls beyond the free connections go as soon as one is free, in the same budget", async () => {
    const { rpc, sent } = makeRpc([(requests) => answers(requests.map(() => ok("0x2")))], { connections: 1 });
    const exits = await onTestClock(
      Effect.all(
        Array.from({ length: 5 }, () => rpc.call("eth_call", [], { budgetMs: 1_000 })),
        { concurrency: "unbounded" },
      ),
    );
    expect(Exit.isSuccess(exits) && exits.value).toEqual(["0x2", "0x2", "0x2", "0x2", "0x2"]);
    expect(sent()).toHaveLength(5);
  });
});

describe("ChainRpc: failover", () => {
  it("behavior: an unreachable primary hands the call to the fallback, and is left alone after", async () => {
    const { rpc, sent } = makeRpc([
      () => whole(refused),
      (requests) => answers(requests.map(() => ok("0x10"))),
    ]);
    const first = await onTestClock(rpc.call("eth_blockNumber", [], { head: true }));
    const second = await onTestClock(rpc.call("eth_blockNumber", [], { head: true }));
    expect(Exit.isSuccess(first) && first.value).toBe("0x10");
    expect(Exit.isSuccess(second) && second.value).toBe("0x10");
    expect(sent().map((s) => s.endpoint)).toEqual([0, 1, 1]);
  });

  it("behavior: with every endpoint down the call fails within its budget, naming each endpoint and its cause", async () => {
    const { rpc } = makeRpc([
      () => whole(refused),
      () => whole({ reason: "Timeout", detail: "no answer in time" }),
    ]);
    const exit = await onTestClock(rpc.call("eth_call", [], { budgetMs: 3_000 }));
    expect(Exit.isFailure(exit)).toBe(true);
    const error = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined;
    expect(error?.reason).toMatch(/Unavailable|Timeout/);
    expect(error?.message).toMatch(/http:\/\/node-\d/);
  });

  it("behavior: for requests, a failing endpoint is not waited for: the call fails at once, background calls wait", async () => {
    let up = false;
    const { rpc, sent } = makeRpc([
      (requests) => (up ? answers(requests.map(() => ok("0x1"))) : whole(refused)),
    ]);
    const first = await onTestClock(rpc.forRequests(5_000).call("eth_call", []));
    expect(Exit.isFailure(first)).toBe(true);
    expect(sent()).toHaveLength(1);
    // Known failing now: a request's call sends nothing and fails, even after the first pause is over.
    const again = await Effect.runPromise(
      Effect.gen(function* () {
        yield* TestClock.adjust("2 seconds");
        return yield* Effect.exit(rpc.forRequests(5_000).call("eth_call", []));
      }).pipe(Effect.provide(TestContext.TestContext)),
    );
    expect(Exit.isFailure(again)).toBe(true);
    expect(sent()).toHaveLength(1);
    // A background call tries it again once the pause is over, and finds it back.
    up = true;
    const background = await onTestClock(rpc.call("eth_call", []));
    expect(Exit.isSuccess(background) && background.value).toBe("0x1");
  });

  it("behavior: a hung primary costs a request half its budget, then the fallback answers and stays in service", async () => {
    const hung: Script = () => "hang";
    const fallback: Script = (requests) => answers(requests.map(() => ok("0x1")));
    const clock = sharedTestClock();
    const { rpc, sent } = makeRpc([hung, fallback], { timeoutMs: 10_000, runtime: clock.runtime });
    const first = await Runtime.runPromise(clock.runtime)(
      Effect.gen(function* () {
        const fiber = yield* Effect.fork(rpc.forRequests(7_000).call("eth_chainId", []));
        yield* TestClock.adjust("3400 millis");
        const early = yield* Fiber.poll(fiber);
        yield* TestClock.adjust("200 millis");
        return { early: early._tag, value: yield* Fiber.join(fiber) };
      }),
    );
    expect(first).toEqual({ early: "None", value: "0x1" });
    expect(sent().map((s) => s.endpoint)).toEqual([0, 1]);
    expect(rpc.endpoints[0]!.health.failures).toBe(1);
    expect(rpc.endpoints[1]!.health.failures).toBe(0);
    // The next request goes to the fallback at once: the primary is known to fail.
    const second = await clock.run(rpc.forRequests(7_000).call("eth_chainId", []));
    expect(Exit.isSuccess(second) && second.value).toBe("0x1");
    expect(sent().map((s) => s.endpoint)).toEqual([0, 1, 1]);
  });

  it("behavior: a request whose whole budget ran out on its only endpoint's hang says nothing of the node yet", async () => {
    const hung: Script = () => "hang";
    const clock = sharedTestClock();
    const { rpc } = makeRpc([hung], { timeoutMs: 10_000, runtime: clock.runtime });
    const exit = await clock.run(rpc.forRequests(2_000).call("eth_chainId", []));
    expect(Exit.isFailure(exit)).toBe(true);
    // Two seconds is the call's own limit, not the node's: the monitor's poll decides that.
    expect(rpc.endpoints[0]!.health.failures).toBe(0);
  });

  it("behavior: a method one endpoint lacks is asked of the next, and not of the first again", async () => {
    const { rpc, sent } = makeRpc([
      (requests) =>
        answers(
          requests.map((r) =>
            r.method.startsWith("debug_")
              ? no({ reason: "MethodUnavailable", detail: "Method not found" })
              : ok("0x1"),
          ),
        ),
      (requests) => answers(requests.map(() => ok([]))),
    ]);
    await onTestClock(rpc.call("debug_traceBlockByHash", ["0xab"]));
    await onTestClock(rpc.call("debug_traceBlockByHash", ["0xcd"]));
    expect(sent().map((s) => s.endpoint)).toEqual([0, 1, 1]);
  });

  it("behavior: history one endpoint pruned is read from another; pruned everywhere, the call fails as such", async () => {
    const pruned: Script = (requests) =>
      answers(
        requests.map(() => no({ reason: "HistoryUnavailable", detail: "state at block #5 is pruned" })),
      );
    const archive: Script = (requests) => answers(requests.map(() => ok("0xarchive")));
    const both = makeRpc([pruned, archive]);
    const read = await onTestClock(both.rpc.call("eth_call", [{}, "0x5"], { block: 5, reads: "state" }));
    expect(Exit.isSuccess(read) && read.value).toBe("0xarchive");
    const none = makeRpc([pruned, pruned]);
    const failed = await onTestClock(none.rpc.call("eth_call", [{}, "0x5"], { block: 5, reads: "state" }));
    expect(Exit.isFailure(failed) && failed.cause._tag === "Fail" && failed.cause.error.reason).toBe(
      "HistoryUnavailable",
    );
  });

  it("behavior: a revert fails at once, without trying other endpoints", async () => {
    const { rpc, sent } = makeRpc([
      (requests) => answers(requests.map(() => no({ reason: "Rejected", detail: "execution reverted" }))),
      (requests) => answers(requests.map(() => ok("0x"))),
    ]);
    const exit = await onTestClock(rpc.call("eth_call", []));
    expect(Exit.isFailure(exit)).toBe(true);
    expect(sent()).toHaveLength(1);
  });
});

describe("ChainRpc: batches and rate limits", () => {
  it("behavior: batches are cut to the endpoint's size, and results come back in order", async () => {
    const { rpc, sent } = makeRpc([(requests) => answers(requests.map((r) => ok(r.params[0])))], {
      maxBatch: 3,
    });
    const exit = await onTestClock(
      rpc.batch(Array.from({ length: 8 }, (_, i) => ({ method: "eth_getBlockByNumber", params: [i] }))),
    );
    expect(Exit.isSuccess(exit) && exit.value).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(sent().map((s) => s.methods.length)).toEqual([3, 3, 2]);
  });

  it("behavior: the head poll does not call an endpoint failing for waiting on this process's own rate budget", async () => {
    const clock = sharedTestClock();
    const { rpc } = makeRpc([(requests) => answers(requests.map(() => ok("0x1")))], {
      maxRps: 2,
      runtime: clock.runtime,
    });
    const exit = await clock.run(
      Effect.scoped(
        Effect.gen(function* () {
          yield* monitorChain(rpc, { headPollMs: 200, probeIntervalMs: 3_600_000 });
          // Whether it was ever called failing meanwhile (an answered poll clears it again).
          let called = 0;
          yield* Effect.forkScoped(
            Effect.forever(
              Effect.zipRight(
                Effect.sync(() => {
                  called = Math.max(called, rpc.endpoints[0]!.health.failures);
                }),
                Effect.sleep("50 millis"),
              ),
            ),
          );
          // Calls that keep the endpoint at its rate for 20 s, ten at a time: its head polls wait behind them.
          yield* Effect.forEach(
            Array.from({ length: 40 }, () => undefined),
            () => rpc.call("eth_chainId", []),
            { concurrency: 10, discard: true },
          );
          return called;
        }),
      ),
    );
    expect(Exit.isSuccess(exit) && exit.value).toBe(0);
  });

  it("behavior: under a configured rate, batches carry half a second's worth and go beside steady single calls", async () => {
    const { rpc, sent } = makeRpc([(requests) => answers(requests.map((r) => ok(r.params[0])))], {
      maxRps: 10,
    });
    const exit = await onTestClock(
      Effect.scoped(
        Effect.gen(function* () {
          // A call every 400 ms, as API reads come, all along.
          yield* Effect.forkScoped(
            Effect.forever(Effect.zipRight(rpc.call("eth_chainId", []), Effect.sleep("400 millis"))),
          );
          const started = yield* Clock.currentTimeMillis;
          const read = yield* rpc.batch(
            Array.from({ length: 20 }, (_, i) => ({ method: "eth_getBlockByNumber", params: [i] })),
          );
          return { read: read.length, ms: (yield* Clock.currentTimeMillis) - started };
        }),
      ),
    );
    expect(Exit.isSuccess(exit) && exit.value.read).toBe(20);
    // 20 elements at 10 a second beside 2.5 a second of single calls: about 3 s, not never.
    expect(Exit.isSuccess(exit) && exit.value.ms).toBeLessThan(5_000);
    const batches = sent().filter((exchange) => exchange.methods[0] === "eth_getBlockByNumber");
    expect(Math.max(...batches.map((exchange) => exchange.methods.length))).toBe(5);
  });

  it("behavior: what an endpoint serving another chain keeps is not the chain's", () => {
    const { rpc } = makeRpc([() => answers([]), () => answers([])]);
    rpc.endpoints[0]!.health.wrongChain = 10;
    rpc.endpoints[0]!.health.capabilities = { stateFrom: 0, logsFrom: 0, probedAt: 1 };
    rpc.endpoints[1]!.health.capabilities = { stateFrom: 60, logsFrom: 60, probedAt: 1 };
    expect(rpc.capabilities()).toMatchObject({ stateFrom: 60, logsFrom: 60, complete: true });
  });

  it("behavior: a batch refused as too large is sent again in smaller ones, and the smaller size is kept", async () => {
    const { rpc, sent } = makeRpc([
      (requests) =>
        requests.length > 4
          ? whole({ reason: "BatchTooLarge", detail: "batch too large" })
          : answers(requests.map((r) => ok(r.params[0]))),
    ]);
    const exit = await onTestClock(
      rpc.batch(Array.from({ length: 10 }, (_, i) => ({ method: "eth_getBlockByNumber", params: [i] }))),
    );
    expect(Exit.isSuccess(exit) && exit.value).toHaveLength(10);
    expect(rpc.endpoints[0]!.maxBatch).toBeLessThanOrEqual(4);
    // The next batches go straight out in the kept size: no refusal first.
    const again = sent().length;
    const kept = rpc.endpoints[0]!.maxBatch;
    await onTestClock(
      rpc.batch(
        Array.from({ length: kept * 2 }, (_, i) => ({ method: "eth_getBlockByNumber", params: [i] })),
      ),
    );
    expect(sent().length - again).toBe(2);
  });

  it("behavior: per-element 429s inside a 200 batch resend only the refused elements, after a pause", async () => {
    const { rpc, sent } = makeRpc([
      (requests, exchange) =>
        answers(
          requests.map((r, i) =>
            exchange === 0 && i % 2 === 1
              ? no({
                  reason: "RateLimited",
                  detail: "Your app has exceeded its compute units per second capacity",
                })
              : ok(r.params[0]),
          ),
        ),
    ]);
    const exit = await onTestClock(
      rpc.batch(Array.from({ length: 6 }, (_, i) => ({ method: "eth_getBlockByNumber", params: [i] }))),
    );
    expect(Exit.isSuccess(exit) && exit.value).toEqual([0, 1, 2, 3, 4, 5]);
    // The three refused ones, in batches of the rate learned (half a second's worth each).
    const [first, ...again] = sent().map((s) => s.methods.length);
    expect(first).toBe(6);
    expect(again.reduce((sum, n) => sum + n, 0)).toBe(3);
    expect(rpc.endpoints[0]!.budget.rate).toBeDefined();
  });

  it("behavior: a batch sent in many pieces still retries the piece refused for rate", async () => {
    const { rpc, sent } = makeRpc(
      [
        (requests, exchange) =>
          exchange === 3
            ? whole({ reason: "RateLimited", detail: "HTTP 429" })
            : answers(requests.map((r) => ok(r.params[0]))),
      ],
      { maxBatch: 2 },
    );
    const exit = await onTestClock(
      rpc.batch(Array.from({ length: 30 }, (_, i) => ({ method: "eth_getBlockByNumber", params: [i] }))),
    );
    expect(Exit.isSuccess(exit) && exit.value).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(sent()).toHaveLength(16);
  });

  it("behavior: a whole-request 429 with Retry-After waits that long before the same endpoint is asked again", async () => {
    const times: Array<number> = [];
    const { rpc } = makeRpc([
      (_requests, exchange) => {
        times.push(exchange);
        return exchange === 0
          ? whole({ reason: "RateLimited", detail: "HTTP 429", retryAfterMs: 2_000 })
          : answers([ok("0x1")]);
      },
    ]);
    const started = Date.now();
    const exit = await Effect.runPromise(
      Effect.gen(function* () {
        const fiber = yield* Effect.fork(rpc.call("eth_blockNumber", []));
        yield* TestClock.adjust("1900 millis");
        const early = yield* Fiber.poll(fiber);
        yield* TestClock.adjust("2 seconds");
        return { early: early._tag, done: yield* Fiber.join(fiber) };
      }).pipe(Effect.withRandom(Random.make("seed")), Effect.provide(TestContext.TestContext)),
    );
    expect(exit).toEqual({ early: "None", done: "0x1" });
    expect(times).toEqual([0, 1]);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe("getLogs through ChainRpc", () => {
  /** A node with `logsPerBlock` logs in every block, refusing ranges over `cap` blocks in `words`. */
  const cappedNode =
    (cap: number, refusal: (from: number, to: number) => RpcFaultDetail): Script =>
    (requests) =>
      answers(
        requests.map((request) => {
          const filter = request.params[0] as { fromBlock: string; toBlock: string };
          const from = Number.parseInt(filter.fromBlock, 16);
          const to = Number.parseInt(filter.toBlock, 16);
          if (to - from + 1 > cap) return no(refusal(from, to));
          return ok(
            Array.from({ length: to - from + 1 }, (_, i) => ({
              blockNumber: `0x${(from + i).toString(16)}`,
            })),
          );
        }),
      );

  it("behavior: read as kept only, a range below a full node's window goes to the archive, not to the node that answers it empty", async () => {
    // Endpoint 0 keeps logs from block 60 and, as reth does, answers older blocks' logs with
    // nothing; endpoint 1 is an archive and holds the wallet's one transfer, at block 45.
    const transfer = {
      blockNumber: "0x2d",
      address: "0x00000000000000000000000000000000000000aa",
      topics: [],
    };
    const { rpc, sent } = makeRpc([
      (requests) => answers(requests.map(() => ok([]))),
      (requests) => answers(requests.map(() => ok([transfer]))),
    ]);
    rpc.endpoints[0]!.health.capabilities = { stateFrom: 60, logsFrom: 60, probedAt: 0 };
    rpc.endpoints[1]!.health.capabilities = { stateFrom: 0, logsFrom: 0, probedAt: 0 };
    const exit = await onTestClock(getLogs(rpc, {}, 40, 90, { keptOnly: true }));
    expect(Exit.isSuccess(exit) && exit.value).toEqual([transfer]);
    expect(sent().map((s) => s.endpoint)).toEqual([1]);
  });

  it("edge: a range read that waited out its time in line for a connection fails unsent, and the chain's ranges are not halved", async () => {
    const clock = sharedTestClock();
    const { rpc } = makeRpc([(_, exchange) => (exchange === 0 ? "hang" : answers([ok([])]))], {
      connections: 1,
      timeoutMs: 10_000,
      runtime: clock.runtime,
    });
    const size = rpc.logsRange.size;
    const exits = await clock.run(
      Effect.all(
        [
          Effect.exit(rpc.call("eth_call", [], { budgetMs: 10_000 })),
          Effect.zipRight(
            Effect.sleep("10 millis"),
            Effect.exit(getLogs(rpc.forRequests(1_000), {}, 0, 5_000)),
          ),
        ],
        { concurrency: "unbounded" },
      ),
    );
    const read = Exit.isSuccess(exits) ? exits.value[1] : undefined;
    expect(read !== undefined && Exit.isFailure(read)).toBe(true);
    expect(String(read)).toMatch(/no free connection/);
    expect(rpc.logsRange.size).toBe(size);
  });

  it("behavior: a stated cap of 50 blocks costs one refusal; the rest of 5,000 blocks is read in 50-block ranges", async () => {
    const { rpc, sent } = makeRpc([
      cappedNode(50, () => ({
        reason: "RangeTooLarge",
        detail: "eth_getLogs is limited to a 50 range",
        limit: 50,
      })),
    ]);
    const exit = await onTestClock(getLogs(rpc, {}, 1, 5_000));
    expect(Exit.isSuccess(exit) && exit.value.length).toBe(5_000);
    expect(sent().length).toBe(5_000 / 50 + 1);
  });

  it("behavior: a range that times out (a node without a result cap, gathering too many logs) is asked in halves, not again whole", async () => {
    // Ranges over 100 blocks hang until the exchange's timeout; smaller ones are answered.
    const slowNode: Script = (requests) => {
      const filter = requests[0]!.params[0] as { fromBlock: string; toBlock: string };
      const from = Number.parseInt(filter.fromBlock, 16);
      const to = Number.parseInt(filter.toBlock, 16);
      if (to - from + 1 > 100) return "hang";
      return answers([
        ok(
          Array.from({ length: to - from + 1 }, (_, i) => ({ blockNumber: `0x${(from + i).toString(16)}` })),
        ),
      ]);
    };
    const clock = sharedTestClock();
    const { rpc, sent } = makeRpc([slowNode], { runtime: clock.runtime });
    const exit = await clock.run(getLogs(rpc, {}, 1, 1_000));
    expect(Exit.isSuccess(exit) && exit.value.length).toBe(1_000);
    expect(rpc.logsRange.size).toBeLessThanOrEqual(110);
    // 500, 250 and 125 timed out once each; the endpoint was never left alone as failing.
    expect(sent().length).toBeLessThan(25);
    expect(rpc.failing()).toBe(false);
  });

  it("behavior: a range the node answers as timed out (geth's -32002 in its answer) is asked in halves too, the node not failing", async () => {
    const timingOut: Script = (requests) => {
      const filter = requests[0]!.params[0] as { fromBlock: string; toBlock: string };
      const from = Number.parseInt(filter.fromBlock, 16);
      const to = Number.parseInt(filter.toBlock, 16);
      if (to - from + 1 > 100)
        return answers([{ ok: false, fault: { reason: "Timeout", detail: "request timed out (-32002)" } }]);
      return answers([
        ok(
          Array.from({ length: to - from + 1 }, (_, i) => ({ blockNumber: `0x${(from + i).toString(16)}` })),
        ),
      ]);
    };
    const { rpc, sent } = makeRpc([timingOut]);
    const exit = await onTestClock(getLogs(rpc, {}, 1, 1_000));
    expect(Exit.isSuccess(exit) && exit.value.length).toBe(1_000);
    expect(sent().length).toBeLessThan(25);
    expect(rpc.failing()).toBe(false);
  });

  it("behavior: an answer one endpoint gave unreadably is asked of another; with none left, the bad answer is the failure", async () => {
    const broken: Script = () => whole({ reason: "BadResponse", detail: "the answer is not JSON: <html>" });
    const { rpc, sent } = makeRpc([broken, (requests) => answers(requests.map(() => ok("0x10")))]);
    const exit = await onTestClock(rpc.call("eth_blockNumber", []));
    expect(Exit.isSuccess(exit) && exit.value).toBe("0x10");
    expect(sent().map((exchange) => exchange.endpoint)).toEqual([0, 1]);
    const alone = makeRpc([broken]);
    const failed = await onTestClock(alone.rpc.call("eth_blockNumber", []));
    expect(Exit.isFailure(failed) && JSON.stringify(failed.cause)).toMatch(/BadResponse/);
  });

  it("hostile: a log query answered with null or an object is a bad answer, not a throw", async () => {
    for (const result of [null, { logs: [] }]) {
      const { rpc } = makeRpc([() => answers([ok(result)])]);
      const exit = await onTestClock(getLogs(rpc, {}, 1, 10));
      expect(Exit.isFailure(exit)).toBe(true);
      if (Exit.isFailure(exit)) expect(JSON.stringify(exit.cause)).toMatch(/BadResponse/);
    }
  });

  it("behavior: a suggested range is asked next, then ranges grow back", async () => {
    const { rpc, sent } = makeRpc([
      cappedNode(120, (from) => ({
        reason: "TooManyResults",
        detail: "query returned more than 10000 results",
        suggested: { from, to: from + 99 },
      })),
    ]);
    const exit = await onTestClock(getLogs(rpc, {}, 1, 3_000));
    expect(Exit.isSuccess(exit) && exit.value.length).toBe(3_000);
    // 100, then 105, 110, 115: then 121 is refused again and 100 suggested.
    const ranges = sent().length;
    expect(ranges).toBeLessThan((3_000 / 100) * 1.4);
  });

  it("behavior: a single block over a result cap is read from its receipts, filtered as eth_getLogs would", async () => {
    const log = (block: number, address: string) => ({
      blockNumber: `0x${block.toString(16)}`,
      address,
      topics: ["0xddf2"],
    });
    const { rpc } = makeRpc([
      (requests) =>
        answers(
          requests.map((request) => {
            if (request.method === "eth_getLogs")
              return no({ reason: "TooManyResults", detail: "query returned more than 10000 results" });
            const block = Number.parseInt(String(request.params[0]), 16);
            return ok([{ logs: [log(block, "0xAA"), log(block, "0xbb")] }, { logs: [log(block, "0xaa")] }]);
          }),
        ),
    ]);
    const exit = await onTestClock(getLogs(rpc, { address: "0xaa" }, 1, 4));
    expect(Exit.isSuccess(exit) && exit.value.map((l) => [l.blockNumber, l.address])).toEqual([
      ["0x1", "0xAA"],
      ["0x1", "0xaa"],
      ["0x2", "0xAA"],
      ["0x2", "0xaa"],
      ["0x3", "0xAA"],
      ["0x3", "0xaa"],
      ["0x4", "0xAA"],
      ["0x4", "0xaa"],
    ]);
  });

  it("error: a single block over the cap on a node without block receipts ends the read with the refusal", async () => {
    const { rpc } = makeRpc([
      (requests) =>
        answers(
          requests.map((request) =>
            request.method === "eth_getLogs"
              ? no({ reason: "TooManyResults", detail: "response too large" })
              : no({ reason: "MethodUnavailable", detail: "Method not found" }),
          ),
        ),
    ]);
    const exit = await onTestClock(getLogs(rpc, {}, 1, 64));
    expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error.reason).toBe(
      "TooManyResults",
    );
  });
});
