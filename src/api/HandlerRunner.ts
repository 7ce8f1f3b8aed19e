import { randomUUID } from "node:crypto";
import { type Msg, type NatsConnection, headers as natsHeaders } from "@nats-io/transport-node";
import { Cause, Effect, Either, Exit, Option, Runtime, type Scope } from "effect";
import {
  type ApiError,
  errorBody,
  InternalError,
  InvalidRequest,
  QuotaExceeded,
  RateLimited,
  statusOf,
  Unauthenticated,
} from "../contracts/ApiError.js";
import { HEADER, type RequestEnvelope } from "../contracts/Envelope.js";
import { exceedsJsonDepth, MAX_JSON_DEPTH, tooDeepMessage } from "../lib/jsonDepth.js";
import { Lru } from "../lib/Lru.js";
import { Metrics } from "../metrics/Metrics.js";
import { UsageBook } from "../usage/UsageBook.js";
import { UsageRecorder } from "../usage/UsageRecorder.js";
import { decodeInput } from "./decodeInput.js";
import type { HandlerResult, KeptReply, Route } from "./Handler.js";
import { type Caller, KeyDirectory } from "./keys/KeyDirectory.js";
import type { BucketLimit, RateLimiter } from "./RateLimiter.js";
import { RequestContext } from "./RequestContext.js";

/** NATS queue group shared by every API worker: each request goes to exactly one. */
export const API_QUEUE = "api";

export interface RunnerOptions {
  readonly limiter: RateLimiter;
  readonly defaultLimit: BucketLimit;
  /**
   * Replies kept for routes with a replay key: at most `entries`, holding about `maxBytes`
   * (clients choose the keys). 0 entries keeps none.
   */
  readonly replies?: { readonly entries: number; readonly maxBytes: number };
}

/** A kept reply, with what the runner sends besides its body. */
interface Kept {
  readonly reply: KeptReply;
  readonly cu: number;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>> | undefined;
}

const encoder = new TextEncoder();

interface Reply {
  readonly status: number;
  readonly body: Uint8Array;
  readonly contentType: string;
  readonly cu: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly error?: ApiError;
}

const errorReply = (error: ApiError): Reply => ({
  status: statusOf(error),
  body: encoder.encode(JSON.stringify(errorBody(error))),
  contentType: "application/json",
  cu: 0,
  headers: error._tag === "RateLimited" ? { [HEADER.retryAfter]: String(error.retryAfterSeconds) } : {},
  error,
});

const successReply = (result: HandlerResult, contentType: string): Reply => ({
  status: result.status ?? 200,
  body:
    typeof result.body === "string"
      ? encoder.encode(result.body)
      : encoder.encode(JSON.stringify(result.body)),
  contentType,
  cu: result.cu,
  ...(result.headers === undefined ? {} : { headers: result.headers }),
});

const replayed = (kept: Kept, receivedAt: number, contentType: string): Reply => ({
  status: kept.status,
  body: kept.reply.body(receivedAt),
  contentType,
  cu: kept.cu,
  ...(kept.headers === undefined ? {} : { headers: kept.headers }),
});

const respond = (msg: Msg, reply: Reply) => {
  if (msg.reply === undefined || msg.reply === "") return;
  const h = natsHeaders();
  h.set(HEADER.status, String(reply.status));
  h.set(HEADER.contentType, reply.contentType);
  h.set(HEADER.computeUnits, String(reply.cu));
  for (const [name, value] of Object.entries(reply.headers ?? {})) h.set(name, value);
  if (reply.error !== undefined) {
    // NATS services convention, so that NATS callers see errors without parsing the body.
    h.set(HEADER.serviceError, reply.error.message.replace(/[\r\n]+/g, " "));
    h.set(HEADER.serviceErrorCode, String(reply.status));
  }
  msg.respond(reply.body, { headers: h });
};

const MALFORMED_ENVELOPE = new InvalidRequest({
  code: "MALFORMED_REQUEST",
  message: "The request envelope is not a JSON object.",
});

const ENVELOPE_TOO_DEEP = new InvalidRequest({ code: "JSON_TOO_DEEP", message: tooDeepMessage() });

/**
 * The request envelope, or why it is refused. NATS callers reach this without the
 * gateway's checks, so the nesting limit is enforced here too (one level more than
 * the body's, for the envelope object around it) before anything recursive runs.
 */
const parseEnvelope = (msg: Msg): RequestEnvelope | InvalidRequest => {
  if (msg.data.length === 0) return { params: {}, query: {} };
  if (exceedsJsonDepth(msg.data, MAX_JSON_DEPTH + 1)) return ENVELOPE_TOO_DEEP;
  try {
    const value: unknown = msg.json();
    if (typeof value !== "object" || value === null || Array.isArray(value)) return MALFORMED_ENVELOPE;
    return value as RequestEnvelope;
  } catch {
    return MALFORMED_ENVELOPE;
  }
};

/**
 * Serves routes on their subjects in the `api` queue group. For each request:
 * decode the envelope, authenticate `X-Svc-Api-Key` (unless public), apply the
 * key's rate limit and the team's monthly quota, decode the input with the
 * endpoint's schemas, run the handler with a RequestContext, charge CU (only on
 * success), map any error to its status once, and reply. A route with a replay key
 * has its kept replies sent again, after the same authentication, rate limit and
 * quota and with the same metering, without decoding or running the handler, for
 * as long as the handler says they are exact. Everything before the
 * handler is synchronous and allocation-light, as it runs on every request. A
 * defect in a handler is logged with the request id and answered 500; it never
 * takes the worker down.
 */
export const serveRoutes = <R>(nc: NatsConnection, routes: ReadonlyArray<Route<R>>, options: RunnerOptions) =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<R | KeyDirectory | UsageRecorder | UsageBook>();
    const directory = yield* KeyDirectory;
    const recorder = yield* UsageRecorder;
    const book = yield* UsageBook;
    const metrics = Option.getOrUndefined(yield* Effect.serviceOption(Metrics));
    const runExit = Runtime.runPromiseExit(runtime);
    const kept = new Lru<string, Kept>(options.replies?.entries ?? 0, {
      maxBytes: options.replies?.maxBytes ?? 0,
      sizeOf: (key, value) => 2 * key.length + value.reply.bytes + 128,
    });
    if (metrics !== undefined)
      metrics.watchCache("api_replies", () => ({ hits: kept.hits, misses: kept.misses }));

    /** Rate limit, then quota: `undefined` when the caller may proceed. */
    const admit = (caller: Caller): RateLimited | QuotaExceeded | undefined => {
      const limit = caller.key.rate_limit;
      const admission = options.limiter.admit(
        caller.key.key_id,
        limit === null ? options.defaultLimit : { rate: limit.requests_per_second, burst: limit.burst },
      );
      if (!admission.admitted) return new RateLimited({ retryAfterSeconds: admission.retryAfterSeconds });
      const quota = caller.team.monthly_cu_quota;
      if (quota !== null) {
        const used = book.monthToDate(caller.team.team_id);
        if (used >= quota) return new QuotaExceeded({ quota, used });
      }
      return undefined;
    };

    const finish = (msg: Msg, item: Route<R>, caller: Caller | undefined, reply: Reply) => {
      const cu = reply.error === undefined ? reply.cu : 0;
      if (caller !== undefined) {
        recorder.record({
          teamId: caller.team.team_id,
          keyId: caller.key.key_id,
          endpoint: item.endpoint.operationId,
          cu,
          failed: reply.status >= 400,
        });
      }
      metrics?.observeApi(
        item.endpoint.operationId,
        reply.status,
        caller === undefined ? undefined : { team: caller.team.name, cu },
      );
      respond(msg, reply);
    };

    const run = (
      msg: Msg,
      item: Route<R>,
      requestId: string,
      envelope: RequestEnvelope,
      caller: Caller | undefined,
    ) => {
      const denied = caller === undefined ? undefined : admit(caller);
      if (denied !== undefined) return finish(msg, item, caller, errorReply(denied));
      const replayKey = kept.capacity === 0 ? undefined : item.replayKey?.(envelope);
      const key = replayKey === undefined ? undefined : `${item.endpoint.subject} ${replayKey}`;
      if (key !== undefined) {
        const hit = kept.get(key);
        if (hit?.reply.fresh() === true)
          return finish(msg, item, caller, replayed(hit, Date.now(), item.endpoint.responseContentType));
        if (hit !== undefined) kept.delete(key);
      }
      const input = decodeInput(item.endpoint, envelope);
      if (Either.isLeft(input)) return finish(msg, item, caller, errorReply(input.left));
      const program = Effect.provideService(item.handler(input.right), RequestContext, {
        requestId,
        caller,
        receivedAt: Date.now(),
        ifNoneMatch: msg.headers?.get(HEADER.ifNoneMatch) || undefined,
      });
      void runExit(program).then((exit) => {
        if (Exit.isSuccess(exit)) {
          const result = exit.value;
          if (key !== undefined && result.keep !== undefined) {
            kept.set(key, {
              reply: result.keep,
              cu: result.cu,
              status: result.status ?? 200,
              headers: result.headers,
            });
          }
          return finish(msg, item, caller, successReply(result, item.endpoint.responseContentType));
        }
        failed(msg, item, caller, requestId, exit.cause, "request failed with a defect");
      });
    };

    /**
     * Answers a request whose handler or authentication did not succeed: a typed failure with its
     * status, a defect logged with the request id and answered 500.
     */
    const failed = (
      msg: Msg,
      item: Route<R>,
      caller: Caller | undefined,
      requestId: string,
      cause: Cause.Cause<ApiError>,
      what: string,
    ) => {
      const failure = Cause.failureOption(cause);
      if (Option.isSome(failure)) return finish(msg, item, caller, errorReply(failure.value));
      Runtime.runFork(runtime)(
        Effect.logError(what, cause).pipe(
          Effect.annotateLogs({ requestId, endpoint: item.endpoint.operationId }),
        ),
      );
      finish(
        msg,
        item,
        caller,
        errorReply(new InternalError({ message: `Internal error; quote request id ${requestId}.` })),
      );
    };

    const handle = (item: Route<R>, msg: Msg) => {
      const requestId = msg.headers?.get(HEADER.requestId) || randomUUID();
      const envelope = parseEnvelope(msg);
      if (envelope instanceof InvalidRequest) return finish(msg, item, undefined, errorReply(envelope));
      if (item.endpoint.auth === "public") return run(msg, item, requestId, envelope, undefined);
      const header = msg.headers?.get(HEADER.apiKey) || undefined;
      const cached = directory.authenticateCached(header);
      if (cached instanceof Unauthenticated) return finish(msg, item, undefined, errorReply(cached));
      if (cached !== undefined) return run(msg, item, requestId, envelope, cached);
      // Not mirrored yet (a key created a moment ago): ask the store. Run to an Exit, as handlers
      // are: a defect here (the store failing in a way it does not type) is a 500, never a
      // rejection nobody handles, which would end the worker.
      void runExit(directory.authenticate(header)).then((exit) =>
        Exit.isSuccess(exit)
          ? run(msg, item, requestId, envelope, exit.value)
          : failed(
              msg,
              item,
              undefined,
              requestId,
              exit.cause,
              "authenticating a request failed with a defect",
            ),
      );
    };

    for (const item of routes) {
      const subscription = nc.subscribe(item.endpoint.subject, {
        queue: API_QUEUE,
        callback: (error, msg) => {
          if (error !== null) return;
          // An exception escaping a subscription callback stops the connection's reader,
          // which would leave this worker deaf to every subject: answer 500 instead.
          try {
            handle(item, msg);
          } catch (defect) {
            Runtime.runFork(runtime)(
              Effect.logError("request failed with a defect", defect).pipe(
                Effect.annotateLogs({ endpoint: item.endpoint.operationId }),
              ),
            );
            respond(msg, errorReply(new InternalError({ message: "Internal error." })));
          }
        },
      });
      yield* Effect.addFinalizer(() => Effect.promise(() => subscription.drain()));
    }
  }) satisfies Effect.Effect<void, never, Scope.Scope | R | KeyDirectory | UsageRecorder | UsageBook>;
