import { Cause, Clock, Effect, Exit, Option, Runtime } from "effect";
import { type ChainRpcError, faultError, type RpcFaultDetail } from "./ChainRpcError.js";
import { chooseEndpoint } from "./chooseEndpoint.js";
import { LogsRangeTuner } from "./LogsRangeTuner.js";
import { type ChainCapabilities, chainCapabilities } from "./NodeCapabilities.js";
import type { ExchangeCut, RpcEndpoint, SentExchange } from "./RpcEndpoint.js";
import type { RpcRequest } from "./RpcRequest.js";

/** How long a call may keep trying (waiting for a paused or failing endpoint included) by default. */
export const DEFAULT_CALL_BUDGET_MS = 30_000;
/**
 * Rounds of sending one call may take at most, whatever its budget: a bound on any retry loop. A
 * round sends every pending element, in as many batches as the endpoint takes.
 */
const MAX_ROUNDS = 12;

export interface CallOptions {
  /** It reads the head (`latest`, eth_blockNumber): an endpoint behind the others is not asked. */
  readonly head?: boolean;
  /** The block it reads: endpoints that have not reached it are not asked. */
  readonly block?: number;
  /** What it reads at `block`: endpoints known to keep it are asked first. */
  readonly reads?: "state" | "logs";
  /**
   * The oldest block a logs read must find kept (a range's first): only endpoints known to keep
   * it are asked while any of them can be, since some nodes (reth) answer a pruned block's logs
   * with nothing instead of an error.
   */
  readonly from?: number;
  /** Give up after this long, rather than wait longer for an endpoint to recover. */
  readonly budgetMs?: number;
  /**
   * Fail at once when every endpoint that could answer is failing, rather than wait for one to
   * come back (a request a client waits for; background work waits).
   */
  readonly failFast?: boolean;
  /**
   * A timeout says the request was too heavy, not that the endpoint failed: the call fails with it
   * at once, without marking the endpoint failing or sending it again (a wide eth_getLogs range,
   * which the caller asks again in halves).
   */
  readonly timeoutIsTooHeavy?: boolean;
}

/** The chain's RPC settings that are not per endpoint. */
export interface ChainRpcSettings {
  readonly chainId: number;
  readonly name: string;
  /** Head reads skip an endpoint more than this many blocks behind the best one. */
  readonly maxHeadLag: number;
  /** Most blocks one eth_getLogs asks for. */
  readonly maxLogsRange: number;
}

/** What to do after a refusal: try again (here or elsewhere), or fail the call with it. */
type Verdict = "retry" | "fail";

/** One round of a call: the endpoint it went to, and what a refusal there may change. */
interface Round {
  readonly endpoint: RpcEndpoint;
  readonly index: number;
  /** Endpoints refused for this call as not theirs to answer (history, here). */
  readonly excluded: Set<number>;
  /**
   * Whether a timeout says the endpoint failed. One cut short by the call's own budget does not:
   * a fallback asked with a second left would otherwise be marked failing for a primary's hang.
   */
  readonly blameTimeouts: boolean;
}

/** A call's next round (`ChainRpc.#plan`). */
type PlannedRound =
  | { readonly kind: "none" }
  | { readonly kind: "wait"; readonly untilMs: number; readonly failing: boolean }
  | {
      readonly kind: "send";
      readonly round: Round;
      /** The pending elements by exchange, each no larger than the endpoint's batch. */
      readonly chunks: ReadonlyArray<ReadonlyArray<number>>;
      /** What is left of the call's budget. */
      readonly left: number;
      /** How long each exchange may take. */
      readonly timeoutMs: number;
    };

/** A call's first round, sent at once (`ChainRpc.#sendFirst`), and what its plan was. */
interface FirstRound {
  readonly call: { readonly excluded: Set<number>; readonly deadline: number };
  readonly now: number;
  readonly plan: PlannedRound & { readonly kind: "send" };
  readonly sending: Promise<SentExchange>;
}

/**
 * What an interrupted fiber runs to cut its call's exchange. Made here, in a scope of its own: made
 * beside the callbacks that hold the answer, it shared their V8 context, and reading Base blocks 8 at
 * a time spent 2.5 times as long in young-generation collections (the answers outlived their calls;
 * what held the canceler past its step was not found, docs/benchmarks.md "RPC layer").
 */
const cutOnInterrupt = (cut: ExchangeCut) => Effect.sync(() => cut.cut?.());

/** An answer to eth_blockNumber tells the endpoint's head, whoever asked it. */
const learnHead = (endpoint: RpcEndpoint, request: RpcRequest, result: unknown, now: number) => {
  if (request.method === "eth_blockNumber" && typeof result === "string")
    endpoint.health.observeHead(Number.parseInt(result, 16), now);
};

/** The least time worth sending an exchange with. */
const MIN_EXCHANGE_MS = 250;
/** A node that gives no answer for this long is failing, whatever the call's own budget. */
const BLAME_AFTER_MS = 3_000;

/**
 * One chain's RPC access, used by every part of the service that reads the chain: ingest, the
 * indexer, balances, pricing, positions and webhooks. A call goes to the best endpoint for it
 * (chooseEndpoint.ts), within that endpoint's rate budget and batch size; a refusal decides what
 * happens next:
 *
 * - rate limited: the endpoint pauses for what it asked and learns a lower rate; the call goes on
 *   elsewhere or after the pause;
 * - unreachable or timed out: the endpoint is left alone for 1 s, doubling while it keeps failing;
 * - batch too large: the endpoint's batch size is lowered for good and the elements sent again;
 * - method or history not available there: the next endpoint is asked;
 * - a range or result cap (eth_getLogs), a revert or an answer we cannot use: the call fails with
 *   it, for the caller to decide (getLogs shrinks its range).
 *
 * A call fails once no endpoint can take it within its budget, with the last refusal it met.
 */
export class ChainRpc {
  readonly logsRange: LogsRangeTuner;
  readonly #runtime: Runtime.Runtime<never>;
  /** The runtime's clock, read without a fiber by the Promise path (a test's clock in tests). */
  readonly #clock: Clock.Clock;
  readonly #runPromise: <A>(effect: Effect.Effect<A>) => Promise<A>;
  /** Options every call made through this handle starts from (see `forRequests`). */
  readonly #defaults: CallOptions;
  readonly #forRequests = new Map<number, ChainRpc>();

  constructor(
    readonly settings: ChainRpcSettings,
    readonly endpoints: ReadonlyArray<RpcEndpoint>,
    runtime: Runtime.Runtime<never>,
    shared: { readonly logsRange?: LogsRangeTuner; readonly defaults?: CallOptions } = {},
  ) {
    this.logsRange = shared.logsRange ?? new LogsRangeTuner(settings.maxLogsRange);
    this.#runtime = runtime;
    this.#clock = Runtime.runSync(runtime)(Effect.clock);
    this.#runPromise = Runtime.runPromise(runtime);
    this.#defaults = shared.defaults ?? {};
  }

  /**
   * The same chain access for reads a client is waiting on: each call gives up after `budgetMs`, and
   * at once when every endpoint is failing, so one chain's dead node costs a request its budget at
   * most, and nothing once the node is known to be down.
   */
  forRequests(budgetMs: number): ChainRpc {
    // One handle per budget, made on first use: every request of a route asks for the same one.
    let handle = this.#forRequests.get(budgetMs);
    if (handle === undefined) {
      handle = new ChainRpc(this.settings, this.endpoints, this.#runtime, {
        logsRange: this.logsRange,
        defaults: { budgetMs, failFast: true },
      });
      this.#forRequests.set(budgetMs, handle);
    }
    return handle;
  }

  get chainId(): number {
    return this.settings.chainId;
  }

  /** One call's result. */
  call<A = unknown>(
    method: string,
    params: ReadonlyArray<unknown>,
    options: CallOptions = {},
  ): Effect.Effect<A, ChainRpcError> {
    return Effect.map(this.batch<A>([{ method, params }], options), (results) => results[0]!);
  }

  /**
   * Every call's result, in order, sent in batches no larger than the serving endpoint takes. A first
   * round that can go at once is sent as Promise code sends it (`#sendFirst`), its exchange cut if
   * the fiber is interrupted: the Effect loop's own steps cost about half as much CPU again as the
   * exchange (`npm run bench -- rpc-layer`), and ingest makes two such calls a block.
   */
  batch<A = unknown>(
    requests: ReadonlyArray<RpcRequest>,
    options: CallOptions = {},
  ): Effect.Effect<ReadonlyArray<A>, ChainRpcError> {
    return Effect.clockWith((clock) =>
      // What the round got is held by the promise's callbacks alone; the canceler is made apart
      // (cutOnInterrupt), so that it does not hold the answer too.
      Effect.async<ReadonlyArray<unknown>, ChainRpcError>((resume) => {
        const cut: ExchangeCut = {};
        const first = this.#sendFirst(requests, options, clock, cut);
        if (first === undefined) {
          resume(this.#run(requests, options));
          return;
        }
        first.sending.then(
          (sent) => {
            const results = this.#answeredInFull(requests, first, sent, clock);
            resume(
              results === undefined
                ? this.#run(requests, options, { ...first, sent })
                : Effect.succeed(results),
            );
          },
          (error: unknown) => resume(Effect.die(error)),
        );
        return cutOnInterrupt(cut);
      }),
    ) as Effect.Effect<ReadonlyArray<A>, ChainRpcError>;
  }

  /** `call` for Promise code (the read paths that batch hundreds of eth_calls): rejects with the ChainRpcError. */
  request<A = unknown>(
    method: string,
    params: ReadonlyArray<unknown>,
    options: CallOptions = {},
  ): Promise<A> {
    const requests = [{ method, params }];
    const first = this.#sendFirst(requests, options, this.#clock);
    if (first === undefined) return this.run(this.#run(requests, options)).then((results) => results[0] as A);
    return first.sending.then((sent) => {
      const results = this.#answeredInFull(requests, first, sent, this.#clock);
      return results === undefined
        ? this.run(this.#run(requests, options, { ...first, sent })).then((more) => more[0] as A)
        : (results[0] as A);
    });
  }

  /**
   * Runs an Effect over this chain (getLogs, a scan) for Promise code, on the runtime this client
   * was made in, so what it logs goes through the service's logger and LOG_LEVEL; rejects with
   * the Effect's failure.
   */
  run<A, E>(effect: Effect.Effect<A, E>): Promise<A> {
    return Runtime.runPromiseExit(this.#runtime)(effect).then((exit) => {
      if (Exit.isSuccess(exit)) return exit.value;
      const failure = Cause.failureOption(exit.cause);
      throw Option.isSome(failure) ? failure.value : Cause.squash(exit.cause);
    });
  }

  /** What the chain's endpoints together can answer, as probed. */
  capabilities(): ChainCapabilities {
    // An endpoint serving another chain is never asked: what it keeps is not this chain's to read.
    return chainCapabilities(
      this.endpoints
        .filter((endpoint) => endpoint.health.wrongChain === undefined)
        .map((endpoint) => endpoint.health.capabilities),
    );
  }

  /**
   * Whether every endpoint of the chain has failed since it last answered (unreachable, 5xx, timed
   * out): a read that would ask nothing of them (a wallet with nothing indexed) still cannot trust
   * an empty answer.
   */
  failing(): boolean {
    return this.endpoints.every(
      (endpoint) => endpoint.health.failures > 0 || endpoint.health.wrongChain !== undefined,
    );
  }

  /** The highest head any endpoint reported, if any did. */
  bestHead(): number | undefined {
    let best: number | undefined;
    for (const endpoint of this.endpoints) {
      const head = endpoint.health.head;
      if (head !== undefined && endpoint.health.wrongChain === undefined) best = Math.max(best ?? 0, head);
    }
    return best;
  }

  /**
   * Where the next round of a call goes, from the endpoints' state at `now`: the endpoint and the
   * elements of each exchange with their time, a wait for an endpoint to free up, or nothing left
   * to try. The same for a first round sent at once (`#sendFirst`) as for the Effect loop.
   */
  #plan(
    pending: ReadonlyArray<number>,
    method: string,
    options: CallOptions,
    call: { readonly excluded: Set<number>; readonly deadline: number; readonly rounds: number },
    now: number,
  ): PlannedRound {
    const choice = chooseEndpoint(
      this.endpoints.map((endpoint) => ({
        health: endpoint.health,
        pausedUntil: endpoint.budget.pausedUntil,
        atRate: endpoint.budget.atRate(now),
      })),
      {
        method,
        head: options.head ?? false,
        excluded: call.excluded,
        avoidFailing: options.failFast === true,
        ...(options.block === undefined ? {} : { block: options.block }),
        ...(options.reads === undefined ? {} : { reads: options.reads }),
        ...(options.from === undefined ? {} : { from: options.from }),
      },
      now,
      this.settings.maxHeadLag,
    );
    if (choice.kind === "none") return { kind: "none" };
    if (choice.kind === "wait") return { kind: "wait", untilMs: choice.untilMs, failing: choice.failing };
    if (call.rounds >= MAX_ROUNDS) return { kind: "none" };
    const endpoint = this.endpoints[choice.index]!;
    const chunks: Array<Array<number>> = [];
    // A batch counts one element per request against a provider's rate: at most half a second's
    // worth, so it finds room in the last second's sends beside single calls (a whole second's
    // worth went only once nothing else had been sent for a second, which steady calls prevent).
    const rate = endpoint.budget.rate;
    const batch =
      rate === undefined ? endpoint.maxBatch : Math.max(1, Math.min(endpoint.maxBatch, Math.floor(rate / 2)));
    for (let i = 0; i < pending.length; i += batch) chunks.push(pending.slice(i, i + batch));
    const left = call.deadline - now;
    if (left < MIN_EXCHANGE_MS) return { kind: "none" };
    // A call a client waits for gives one endpoint at most half of what is left when another
    // could answer: a hung primary then costs it half its time, not all of it.
    const share = options.failFast && this.endpoints.length > 1 ? Math.max(BLAME_AFTER_MS, left / 2) : left;
    const timeoutMs = Math.min(endpoint.settings.timeoutMs, left, share);
    return {
      kind: "send",
      chunks,
      left,
      timeoutMs,
      round: {
        endpoint,
        index: choice.index,
        excluded: call.excluded,
        blameTimeouts: timeoutMs >= Math.min(BLAME_AFTER_MS, endpoint.settings.timeoutMs),
      },
    };
  }

  /**
   * A call's first round sent at once, without a fiber, when its plan is one exchange and the
   * endpoint has a connection and room in its rate budget free now; undefined, with nothing taken,
   * otherwise. What it got is judged by `#answeredInFull`, or by the Effect loop (`#run`) as its own
   * first round. `clock` is the caller's: the runtime's for Promise code, the fiber's for Effect.
   */
  #sendFirst(
    requests: ReadonlyArray<RpcRequest>,
    given: CallOptions,
    clock: Clock.Clock,
    cut?: ExchangeCut,
  ): FirstRound | undefined {
    if (requests.length === 0) return undefined;
    const options: CallOptions = { ...this.#defaults, ...given };
    const now = clock.unsafeCurrentTimeMillis();
    const call = {
      excluded: new Set<number>(),
      deadline: now + (options.budgetMs ?? DEFAULT_CALL_BUDGET_MS),
      rounds: 0,
    };
    const plan = this.#plan(
      requests.map((_, i) => i),
      requests[0]!.method,
      options,
      call,
      now,
    );
    if (plan.kind !== "send" || plan.chunks.length !== 1) return undefined;
    const sending = plan.round.endpoint.sendNow(requests, plan.timeoutMs, now, clock, this.#runPromise, cut);
    return sending === undefined ? undefined : { call, now, plan, sending };
  }

  /**
   * The results of a first round that every element of was answered, with what the endpoint learns
   * from it (its head, its latency, its budget); undefined when anything was refused, for the loop.
   */
  #answeredInFull(
    requests: ReadonlyArray<RpcRequest>,
    first: FirstRound,
    sent: SentExchange,
    clock: Clock.Clock,
  ): Array<unknown> | undefined {
    const { outcome } = sent;
    if (outcome.kind !== "answers" || !outcome.answers.every((answer) => answer.ok)) return undefined;
    const { endpoint } = first.plan.round;
    const results = outcome.answers.map((answer) => (answer.ok ? answer.result : undefined));
    for (const [i, request] of requests.entries()) learnHead(endpoint, request, results[i], first.now);
    endpoint.health.answered(sent.latencyMs);
    endpoint.budget.answered(requests.length, clock.unsafeCurrentTimeMillis());
    return results;
  }

  #run(
    requests: ReadonlyArray<RpcRequest>,
    given: CallOptions,
    /** The first round, sent already by `#sendFirst`: what it got is judged as the loop's own. */
    sentFirst?: FirstRound & { readonly sent: SentExchange },
  ): Effect.Effect<Array<unknown>, ChainRpcError> {
    const self = this;
    const options: CallOptions = { ...this.#defaults, ...given };
    return Effect.gen(function* () {
      const results = new Array<unknown>(requests.length);
      if (requests.length === 0) return results;
      const deadline =
        sentFirst?.call.deadline ??
        (yield* Clock.currentTimeMillis) + (options.budgetMs ?? DEFAULT_CALL_BUDGET_MS);
      const excluded = sentFirst?.call.excluded ?? new Set<number>();
      const method = requests[0]!.method;
      let pending = requests.map((_, i) => i);
      let last: ChainRpcError | undefined;
      // An unreadable answer is asked of another endpoint; failing after all, the call says so,
      // whatever the others answered (callers that split large work read it).
      let unreadable: ChainRpcError | undefined;
      let rounds = 0;
      let first = sentFirst;
      while (pending.length > 0) {
        let now: number;
        let plan: PlannedRound & { readonly kind: "send" };
        let sent: ReadonlyArray<SentExchange>;
        if (first !== undefined) {
          ({ now, plan } = first);
          sent = [first.sent];
          first = undefined;
        } else {
          now = yield* Clock.currentTimeMillis;
          const next = self.#plan(pending, method, options, { excluded, deadline, rounds }, now);
          if (next.kind === "none") return yield* Effect.fail(unreadable ?? last ?? self.#nobody(method));
          if (next.kind === "wait") {
            // After an unreadable answer another endpoint is asked only if it can answer now.
            if (
              unreadable !== undefined ||
              next.untilMs > deadline ||
              rounds >= MAX_ROUNDS ||
              (next.failing && options.failFast)
            )
              return yield* Effect.fail(unreadable ?? last ?? self.#nobody(method));
            yield* Effect.sleep(Math.max(1, next.untilMs - now));
            continue;
          }
          plan = next;
          // Waiting for a free connection or the rate budget counts against the call's budget too.
          const sendChunk = (chunk: ReadonlyArray<number>) =>
            plan.round.endpoint.send(
              chunk.map((i) => requests[i]!),
              plan.timeoutMs,
              plan.left,
            );
          sent =
            plan.chunks.length === 1
              ? [yield* sendChunk(plan.chunks[0]!)]
              : yield* Effect.forEach(plan.chunks, sendChunk, { concurrency: "unbounded" });
        }
        rounds++;
        const { round, chunks, timeoutMs } = plan;
        const { endpoint } = round;
        const stillPending: Array<number> = [];
        for (const [c, chunk] of chunks.entries()) {
          const { outcome, latencyMs, givenMs } = sent[c]!;
          if (outcome.kind === "fault") {
            // Never sent (givenMs 0): the call waited out its time in this process's own line for
            // the endpoint, which says nothing of the node (blamed, it would be left alone for a
            // while, and a busy process would stall every call of the chain on itself).
            const unsent = givenMs === 0;
            last = faultError(
              self.chainId,
              requests[chunk[0]!]!.method,
              outcome.fault,
              endpoint.label,
              unsent,
            );
            if (outcome.fault.reason === "BadResponse") unreadable ??= last;
            if (unsent) {
              stillPending.push(...chunk);
              continue;
            }
            // Timed out with less time than planned (the rest went to the wait): no measure of
            // the request's weight, nor of the node unless it had the time it is blamed after (a
            // range that may be heavy never is: it may only have needed the time the wait took).
            const judged =
              givenMs < timeoutMs
                ? {
                    ...round,
                    blameTimeouts:
                      options.timeoutIsTooHeavy !== true &&
                      givenMs >= Math.min(BLAME_AFTER_MS, endpoint.settings.timeoutMs),
                  }
                : round;
            if (
              outcome.fault.reason === "Timeout" &&
              options.timeoutIsTooHeavy === true &&
              givenMs === timeoutMs
            ) {
              endpoint.health.refused(outcome.fault, now);
              return yield* Effect.fail(last);
            }
            if ((yield* self.#judge(judged, outcome.fault, method, chunk.length)) === "fail")
              return yield* Effect.fail(last);
            stillPending.push(...chunk);
            continue;
          }
          let answered = 0;
          // Elements refused for rate in one batch are one refusal: the batch went over the budget once.
          let rateRefusal: RpcFaultDetail | undefined;
          for (const [k, i] of chunk.entries()) {
            const answer = outcome.answers[k]!;
            const request = requests[i]!;
            if (answer.ok) {
              results[i] = answer.result;
              answered++;
              learnHead(endpoint, request, answer.result, now);
              continue;
            }
            last = faultError(self.chainId, request.method, answer.fault, endpoint.label);
            if (answer.fault.reason === "BadResponse") unreadable ??= last;
            if (answer.fault.reason === "RateLimited") {
              if ((answer.fault.retryAfterMs ?? 0) >= (rateRefusal?.retryAfterMs ?? 0))
                rateRefusal = answer.fault;
              stillPending.push(i);
              continue;
            }
            // A node that says in its answer that the request timed out (geth's -32002) judged it too
            // heavy, as a gateway's cut does: for a caller that splits such work, not a failing node.
            if (answer.fault.reason === "Timeout" && options.timeoutIsTooHeavy === true) {
              endpoint.health.refused(answer.fault, now);
              return yield* Effect.fail(last);
            }
            if ((yield* self.#judge(round, answer.fault, request.method, chunk.length)) === "fail")
              return yield* Effect.fail(last);
            stillPending.push(i);
          }
          if (rateRefusal !== undefined) yield* self.#judge(round, rateRefusal, method, chunk.length);
          if (answered > 0) {
            endpoint.health.answered(latencyMs);
            endpoint.budget.answered(answered, yield* Clock.currentTimeMillis);
          }
        }
        pending = stillPending;
      }
      return results;
    });
  }

  /** Records a refusal on the endpoint and says whether the call goes on. */
  #judge(round: Round, fault: RpcFaultDetail, method: string, sent: number): Effect.Effect<Verdict> {
    const self = this;
    const { endpoint, index, excluded } = round;
    return Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis;
      switch (fault.reason) {
        case "RateLimited": {
          endpoint.health.refused(fault, now);
          const pause = yield* endpoint.budget.refused(fault.retryAfterMs);
          yield* Effect.logDebug(
            `chain ${self.chainId}: ${endpoint.label} refused for rate; pausing ${pause} ms`,
          );
          return "retry";
        }
        case "Timeout":
        case "Unavailable": {
          if (fault.reason === "Timeout" && !round.blameTimeouts) {
            // The call's budget ran out, not the endpoint's own time: say nothing about the endpoint.
            endpoint.health.refused(fault, now);
            return "retry";
          }
          const wasUp = endpoint.health.failures === 0;
          endpoint.health.failed(fault, now);
          if (wasUp)
            yield* Effect.logWarning(
              `chain ${self.settings.name} (${self.chainId}): RPC endpoint ${endpoint.label} is failing: ${fault.detail}`,
            );
          return "retry";
        }
        case "BatchTooLarge":
          endpoint.health.refused(fault, now);
          if (sent <= 1) return "fail";
          endpoint.maxBatch = Math.max(1, Math.min(fault.limit ?? Math.floor(sent / 2), sent - 1));
          yield* Effect.logWarning(
            `chain ${self.settings.name} (${self.chainId}): ${endpoint.label} refused a batch of ${sent}; sending at most ${endpoint.maxBatch} from now on`,
          );
          return "retry";
        case "MethodUnavailable":
          endpoint.health.refused(fault, now);
          endpoint.health.lacks.add(method);
          return "retry";
        case "HistoryUnavailable":
          endpoint.health.refused(fault, now);
          excluded.add(index);
          return "retry";
        // An answer this endpoint could not give readably (an HTML page with status 200, a batch
        // answered in part) may be another's to give: the call goes there, and with none left it
        // fails with this answer's reason, which callers that split large work read.
        case "BadResponse":
          endpoint.health.refused(fault, now);
          excluded.add(index);
          return "retry";
        default:
          endpoint.health.refused(fault, now);
          return "fail";
      }
    });
  }

  #nobody(method: string): ChainRpcError {
    const now = Date.now();
    const states = this.endpoints.map((endpoint) => {
      const health = endpoint.health;
      const why =
        health.wrongChain !== undefined
          ? `serves chain id ${health.wrongChain}`
          : health.lacks.has(method)
            ? `does not serve ${method}`
            : health.isDown(now)
              ? `failing: ${health.lastError ?? "no answer"}`
              : (health.lastError ?? "no answer");
      // A range read goes only to endpoints known to keep its first block (chooseEndpoint).
      const logsFrom = method === "eth_getLogs" ? health.capabilities?.logsFrom : undefined;
      return `${endpoint.label} (${why}${logsFrom === undefined ? "" : `; keeps logs from block ${logsFrom}`})`;
    });
    return faultError(this.chainId, method, {
      reason: this.endpoints.every((e) => e.health.wrongChain !== undefined) ? "WrongChain" : "Unavailable",
      detail: `no RPC endpoint of ${this.settings.name} can answer now: ${states.join("; ")}`,
    });
  }
}
