import { Clock, Effect, Option, type Scope } from "effect";
import { Pool } from "undici";
import { EndpointHealth } from "./EndpointHealth.js";
import { FairSlots } from "./fairSlots.js";
import { type ExchangeOutcome, exchange, MAX_RESPONSE_BYTES } from "./jsonRpcExchange.js";
import { maskRpcUrl } from "./maskRpcUrl.js";
import { RateBudget } from "./RateBudget.js";
import type { RpcRequest } from "./RpcRequest.js";

/** One endpoint's settings, from the chains file (ChainsConfig.ts: `rpc_urls`, `rpc`). */
export interface EndpointSettings {
  readonly url: string;
  /** Extra HTTP headers (providers that take their key in a header). Never shown anywhere. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Elements a second (each element of a batch counts); undefined: as many as it answers. */
  readonly maxRps?: number;
  /** Requests in flight at once. */
  readonly maxConcurrency: number;
  /** Elements per JSON-RPC batch. */
  readonly maxBatch: number;
  /** How long one HTTP exchange may take. */
  readonly timeoutMs: number;
}

/** Sends one exchange of `requests` and resolves with its outcome; never fails. */
export type EndpointTransport = (
  requests: ReadonlyArray<RpcRequest>,
  timeoutMs: number,
) => Effect.Effect<ExchangeOutcome>;

/**
 * A way to cut an exchange before its time (an interrupted Effect caller), set by the transport
 * once the exchange is under way. The exchange's own abort controller is made where it is sent:
 * made by the caller and passed down, it kept every answer alive longer (docs/benchmarks.md, "RPC
 * layer").
 */
export interface ExchangeCut {
  cut?: () => void;
}

/** The same exchange as a Promise, without a fiber: what an HTTP endpoint sends on the fast path. */
export type DirectTransport = (
  requests: ReadonlyArray<RpcRequest>,
  timeoutMs: number,
  cut?: ExchangeCut,
) => Promise<ExchangeOutcome>;

/** An exchange's outcome and how long it took. */
export interface SentExchange {
  readonly outcome: ExchangeOutcome;
  readonly latencyMs: number;
  /**
   * How long the exchange itself was given: its timeout, less what a wait for a connection or the
   * rate budget took of the call's queue time; 0 when that wait took it all and nothing was sent,
   * which says nothing of the endpoint.
   */
  readonly givenMs: number;
  /** When nothing was sent: what the wait was for, this process's rate budget or a free connection. */
  readonly unsentFor?: "rate" | "connection";
}

/**
 * One RPC endpoint of a chain: how to reach it, how fast it may be asked (RateBudget, a limit on
 * requests in flight), the batch size it takes (lowered when it refuses a batch), and what this
 * process has seen of it (EndpointHealth).
 */
export class RpcEndpoint {
  readonly health = new EndpointHealth();
  readonly budget: RateBudget;
  /** Elements per batch: the setting, lowered for good when the endpoint refuses a batch as too large. */
  maxBatch: number;

  constructor(
    readonly label: string,
    readonly settings: EndpointSettings,
    readonly transport: EndpointTransport,
    /** Its connections (`maxConcurrency`), handed out in the order calls asked. */
    private readonly slots: FairSlots,
    /** `transport` as a Promise, where the endpoint has one; otherwise `transport` is run. */
    private readonly direct?: DirectTransport,
  ) {
    this.budget = new RateBudget(settings.maxRps);
    this.maxBatch = settings.maxBatch;
  }

  /**
   * Sends `requests` as one exchange once the budget and a free slot allow it, waiting for them
   * `queueMs` at most (then a Timeout fault, without sending); an exchange sent after a wait is
   * given what is left of `queueMs`, up to `timeoutMs`, so the wait never cuts it. Most calls find
   * both free: they go at once, without the fiber and timer a wait needs (with the single-exchange
   * path of ChainRpc, one eth_call's CPU in this layer fell from 0.43-0.64 ms to 0.20-0.32 ms,
   * measured on anvil).
   */
  readonly send = (
    requests: ReadonlyArray<RpcRequest>,
    timeoutMs: number,
    queueMs = Number.POSITIVE_INFINITY,
  ): Effect.Effect<SentExchange> =>
    Effect.flatMap(
      this.slots.ifFree(
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          this.budget.tryTake(requests.length, now) === 0
            ? Effect.map(this.#exchange(requests, timeoutMs, now), Option.some)
            : Effect.succeed(Option.none<SentExchange>()),
        ),
      ),
      (sent) =>
        sent !== undefined && Option.isSome(sent)
          ? Effect.succeed(sent.value)
          : this.#queued(requests, timeoutMs, queueMs),
    );

  /**
   * `send` without a fiber when a connection and the rate budget are free now: the exchange, begun
   * at once, through the endpoint's Promise transport (or its Effect one, run, where it has none:
   * scripted endpoints in tests); undefined, and nothing taken, when either would have to be
   * waited for. `cut` is given a way to cut the exchange (the Promise transport's only).
   */
  sendNow(
    requests: ReadonlyArray<RpcRequest>,
    timeoutMs: number,
    now: number,
    clock: Clock.Clock,
    runPromise: <A>(effect: Effect.Effect<A>) => Promise<A>,
    cut?: ExchangeCut,
  ): Promise<SentExchange> | undefined {
    if (!this.slots.tryTake()) return undefined;
    if (this.budget.tryTake(requests.length, now) !== 0) {
      this.slots.release();
      return undefined;
    }
    let exchanged: Promise<ExchangeOutcome>;
    try {
      exchanged =
        this.direct === undefined
          ? runPromise(this.transport(requests, timeoutMs))
          : this.direct(requests, timeoutMs, cut);
    } catch (error) {
      // A transport that throws before it returns (none of ours does) still gives the slot back.
      this.slots.release();
      return Promise.reject(error);
    }
    return exchanged
      .then(
        (outcome): SentExchange => ({
          outcome,
          latencyMs: clock.unsafeCurrentTimeMillis() - now,
          givenMs: timeoutMs,
        }),
      )
      .finally(() => this.slots.release());
  }

  #exchange(requests: ReadonlyArray<RpcRequest>, timeoutMs: number, started: number) {
    return Effect.flatMap(this.transport(requests, timeoutMs), (outcome) =>
      Effect.map(
        Clock.currentTimeMillis,
        (now): SentExchange => ({ outcome, latencyMs: now - started, givenMs: timeoutMs }),
      ),
    );
  }

  /**
   * The slow path: wait for a slot, then the budget, together within `queueMs`; only the wait is
   * timed by it. Out of time, the outcome is a Timeout fault never sent (`givenMs` 0): the line
   * was this process's, so no caller may count it against the endpoint.
   */
  #queued(
    requests: ReadonlyArray<RpcRequest>,
    timeoutMs: number,
    queueMs: number,
  ): Effect.Effect<SentExchange> {
    const unsent = (detail: string, unsentFor: "rate" | "connection"): SentExchange => ({
      outcome: { kind: "fault", fault: { reason: "Timeout", detail: `${detail} within ${queueMs} ms` } },
      latencyMs: queueMs,
      givenMs: 0,
      unsentFor,
    });
    return Effect.flatMap(Clock.currentTimeMillis, (askedAt) =>
      this.slots.withSlotWithin(
        queueMs,
        Effect.gen(this, function* () {
          const budgeted = yield* this.#budgetWithin(requests.length, askedAt + queueMs);
          const now = yield* Clock.currentTimeMillis;
          const givenMs = Math.min(timeoutMs, askedAt + queueMs - now);
          if (!budgeted || givenMs <= 0) return unsent("no room in the endpoint's rate budget", "rate");
          return yield* this.#exchange(requests, givenMs, now);
        }),
        () => unsent("no free connection", "connection"),
      ),
    );
  }

  /** Waits for the rate budget to allow `cost` elements, until `deadline` at most: whether it did. */
  #budgetWithin(cost: number, deadline: number): Effect.Effect<boolean> {
    if (!Number.isFinite(deadline)) return Effect.as(this.budget.take(cost), true);
    return Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.timeoutTo(this.budget.take(cost), {
        duration: Math.max(0, deadline - now),
        onSuccess: () => true,
        onTimeout: () => false,
      }),
    );
  }
}

/**
 * Runs `run` with `controller`'s signal, aborted after `ms` (or earlier by the caller, through it),
 * through one abort controller and a timer of our own: on Node 20 the `AbortSignal.timeout` inside
 * `AbortSignal.any` can be garbage-collected before it fires (nodejs/node#57736), which left
 * exchanges running to undici's backstop instead of their timeout.
 */
const withCut = (
  ms: number,
  run: (signal: AbortSignal) => Promise<ExchangeOutcome>,
  controller: AbortController,
): Promise<ExchangeOutcome> => {
  const timer = setTimeout(() => controller.abort(new DOMException("no answer in time", "TimeoutError")), ms);
  // Aborted by its caller (an interrupted fiber), the timer goes at once, whatever `run` does next.
  // Kept where nothing else aborts (a call from Promise code) too: measured without any listener of ours
  // on the signal, a call cost 0.47 ms of CPU instead of 0.21 (`npm run bench -- rpc-layer`; the
  // cause, in Node's AbortSignal or in undici, not looked into). Do not drop it for speed.
  controller.signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
  return run(controller.signal).finally(() => clearTimeout(timer));
};

/** Cuts an exchange whose caller was interrupted. */
const abortInterrupted = (controller: AbortController) =>
  controller.abort(new DOMException("interrupted", "AbortError"));

/** One exchange as an Effect, cut after `ms` or when the fiber is interrupted. */
const cutAfter = (ms: number, run: (signal: AbortSignal) => Promise<ExchangeOutcome>) =>
  Effect.async<ExchangeOutcome>((resume) => {
    const controller = new AbortController();
    withCut(ms, run, controller).then(
      (outcome) => resume(Effect.succeed(outcome)),
      (error: unknown) => resume(Effect.die(error)),
    );
    return Effect.sync(() => abortInterrupted(controller));
  });

/** An endpoint over HTTP: keep-alive connections, closed with the scope. */
export const httpEndpoint = (settings: EndpointSettings): Effect.Effect<RpcEndpoint, never, Scope.Scope> =>
  Effect.gen(function* () {
    const url = new URL(settings.url);
    const pool = new Pool(url.origin, {
      connections: settings.maxConcurrency,
      // Backstops only: each exchange is cut at its own timeout by an abort signal.
      headersTimeout: settings.timeoutMs + 1_000,
      bodyTimeout: settings.timeoutMs + 1_000,
      connectTimeout: Math.min(settings.timeoutMs, 10_000),
      keepAliveTimeout: 30_000,
      maxResponseSize: MAX_RESPONSE_BYTES,
    });
    yield* Effect.addFinalizer(() => Effect.promise(() => pool.close().catch(() => undefined)));
    const headers: Record<string, string> = { "content-type": "application/json", ...settings.headers };
    if (url.username !== "")
      headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64")}`;
    const target = { dispatcher: pool, path: `${url.pathname}${url.search}`, headers };
    const send = (requests: ReadonlyArray<RpcRequest>) => (signal: AbortSignal) =>
      exchange(target, requests, { signal, nowMs: Date.now });
    const transport: EndpointTransport = (requests, timeoutMs) => cutAfter(timeoutMs, send(requests));
    const direct: DirectTransport = (requests, timeoutMs, cut) => {
      const controller = new AbortController();
      if (cut !== undefined) cut.cut = () => abortInterrupted(controller);
      return withCut(timeoutMs, send(requests), controller);
    };
    return new RpcEndpoint(
      maskRpcUrl(settings.url),
      settings,
      transport,
      new FairSlots(settings.maxConcurrency),
      direct,
    );
  });
