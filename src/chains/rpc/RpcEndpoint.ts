import { Clock, Effect, type Scope } from "effect";
import { Pool } from "undici";
import { EndpointHealth } from "./EndpointHealth.js";
import { type ExchangeOutcome, exchange } from "./jsonRpcExchange.js";
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

/** An exchange's outcome and how long it took. */
export interface SentExchange {
  readonly outcome: ExchangeOutcome;
  readonly latencyMs: number;
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
    private readonly slots: Effect.Semaphore,
  ) {
    this.budget = new RateBudget(settings.maxRps);
    this.maxBatch = settings.maxBatch;
  }

  /** Sends `requests` as one exchange once the budget and a free slot allow it. */
  readonly send = (requests: ReadonlyArray<RpcRequest>, timeoutMs: number): Effect.Effect<SentExchange> =>
    this.slots.withPermits(1)(
      Effect.gen(this, function* () {
        yield* this.budget.take(requests.length);
        const started = yield* Clock.currentTimeMillis;
        const outcome = yield* this.transport(requests, timeoutMs);
        return { outcome, latencyMs: (yield* Clock.currentTimeMillis) - started };
      }),
    );
}

/**
 * A signal that aborts after `ms`, or when `interrupted` does, and `done` to call once the work it
 * guards has ended. Built on a timer of our own: on Node 20 the `AbortSignal.timeout` inside
 * `AbortSignal.any` can be garbage-collected before it fires (nodejs/node#57736), which left
 * exchanges running to undici's backstop instead of their timeout.
 */
const cutAfter = (ms: number, interrupted: AbortSignal) => {
  const controller = new AbortController();
  const onInterrupt = () => controller.abort(interrupted.reason);
  const timer = setTimeout(() => controller.abort(new DOMException("no answer in time", "TimeoutError")), ms);
  if (interrupted.aborted) onInterrupt();
  else interrupted.addEventListener("abort", onInterrupt, { once: true });
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      interrupted.removeEventListener("abort", onInterrupt);
    },
  };
};

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
    });
    yield* Effect.addFinalizer(() => Effect.promise(() => pool.close().catch(() => undefined)));
    const headers: Record<string, string> = { "content-type": "application/json", ...settings.headers };
    if (url.username !== "")
      headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64")}`;
    const target = { dispatcher: pool, path: `${url.pathname}${url.search}`, headers };
    const transport: EndpointTransport = (requests, timeoutMs) =>
      Effect.promise(async (interrupted) => {
        const cut = cutAfter(timeoutMs, interrupted);
        try {
          return await exchange(target, requests, { signal: cut.signal, nowMs: Date.now });
        } finally {
          cut.done();
        }
      });
    const slots = yield* Effect.makeSemaphore(settings.maxConcurrency);
    return new RpcEndpoint(maskRpcUrl(settings.url), settings, transport, slots);
  });
