import { randomUUID } from "node:crypto";
import { headers as natsHeaders, type Msg, type NatsConnection } from "@nats-io/transport-node";
import { Cause, Effect, Exit, Option, Runtime, type Scope } from "effect";
import {
  type ApiError,
  errorBody,
  InternalError,
  InvalidRequest,
  QuotaExceeded,
  RateLimited,
  statusOf,
} from "../contracts/ApiError.js";
import { HEADER, type RequestEnvelope } from "../contracts/Envelope.js";
import { decodeInput } from "./decodeInput.js";
import type { HandlerResult, Route } from "./Handler.js";
import { type Caller, KeyDirectory } from "./keys/KeyDirectory.js";
import type { BucketLimit, RateLimiter } from "./RateLimiter.js";
import { RequestContext } from "./RequestContext.js";
import { UsageBook } from "./usage/UsageBook.js";
import { UsageRecorder } from "./usage/UsageRecorder.js";

/** NATS queue group shared by every API worker: each request goes to exactly one. */
export const API_QUEUE = "api";

export interface RunnerOptions {
  readonly limiter: RateLimiter;
  readonly defaultLimit: BucketLimit;
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
  body: typeof result.body === "string" ? encoder.encode(result.body) : encoder.encode(JSON.stringify(result.body)),
  contentType,
  cu: result.cu,
  ...(result.headers === undefined ? {} : { headers: result.headers }),
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

const parseEnvelope = (msg: Msg): RequestEnvelope | undefined => {
  if (msg.data.length === 0) return { params: {}, query: {} };
  try {
    const value: unknown = msg.json();
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    return value as RequestEnvelope;
  } catch {
    return undefined;
  }
};

/**
 * Serves routes on their subjects in the `api` queue group. For each request:
 * decode the envelope, authenticate `X-Svc-Api-Key` (unless public), apply the
 * key's rate limit and the team's monthly quota, decode the input with the
 * endpoint's schemas, run the handler with a RequestContext, charge CU (only on
 * success), map any error to its status once, and reply. A defect in a handler
 * is logged with the request id and answered 500; it never takes the worker down.
 */
export const serveRoutes = <R>(nc: NatsConnection, routes: ReadonlyArray<Route<R>>, options: RunnerOptions) =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<R | KeyDirectory | UsageRecorder | UsageBook>();
    const directory = yield* KeyDirectory;
    const recorder = yield* UsageRecorder;
    const book = yield* UsageBook;
    const runExit = Runtime.runPromiseExit(runtime);

    const admit = (caller: Caller): Effect.Effect<void, RateLimited | QuotaExceeded> =>
      Effect.suspend((): Effect.Effect<void, RateLimited | QuotaExceeded> => {
        const limit = caller.key.rate_limit ?? null;
        const admission = options.limiter.admit(
          caller.key.key_id,
          limit === null ? options.defaultLimit : { rate: limit.requests_per_second, burst: limit.burst },
        );
        if (!admission.admitted) return Effect.fail(new RateLimited({ retryAfterSeconds: admission.retryAfterSeconds }));
        const quota = caller.team.monthly_cu_quota;
        if (quota !== null) {
          const used = book.monthToDate(caller.team.team_id);
          if (used >= quota) return Effect.fail(new QuotaExceeded({ quota, used }));
        }
        return Effect.void;
      });

    const handle = (item: Route<R>, msg: Msg) => {
      const endpoint = item.endpoint;
      const requestId = msg.headers?.get(HEADER.requestId) || randomUUID();
      let caller: Caller | undefined;
      const program = Effect.gen(function* () {
        const envelope = parseEnvelope(msg);
        if (envelope === undefined) {
          return yield* new InvalidRequest({ code: "MALFORMED_REQUEST", message: "The request envelope is not a JSON object." });
        }
        if (endpoint.auth === "key") {
          caller = yield* directory.authenticate(msg.headers?.get(HEADER.apiKey) || undefined);
          yield* admit(caller);
        }
        const input = yield* decodeInput(endpoint, envelope);
        return yield* item.handler(input).pipe(
          Effect.provideService(RequestContext, { requestId, caller, receivedAt: Date.now() }),
        );
      }).pipe(Effect.withSpan(`api.${endpoint.operationId}`), Effect.annotateLogs({ requestId, endpoint: endpoint.operationId }));

      return runExit(program).then((exit) => {
        let reply: Reply;
        if (Exit.isSuccess(exit)) {
          reply = successReply(exit.value, endpoint.responseContentType);
        } else {
          const failure = Cause.failureOption(exit.cause);
          if (Option.isSome(failure)) {
            reply = errorReply(failure.value);
          } else {
            Runtime.runFork(runtime)(
              Effect.logError("request failed with a defect", exit.cause).pipe(Effect.annotateLogs({ requestId })),
            );
            reply = errorReply(new InternalError({ message: `Internal error; quote request id ${requestId}.` }));
          }
        }
        if (caller !== undefined) {
          recorder.record({
            teamId: caller.team.team_id,
            keyId: caller.key.key_id,
            endpoint: endpoint.operationId,
            cu: reply.error === undefined ? reply.cu : 0,
            failed: reply.status >= 400,
          });
        }
        respond(msg, reply);
      });
    };

    for (const item of routes) {
      const subscription = nc.subscribe(item.endpoint.subject, {
        queue: API_QUEUE,
        callback: (error, msg) => {
          if (error === null) void handle(item, msg);
        },
      });
      yield* Effect.addFinalizer(() => Effect.promise(() => subscription.drain()));
    }
  }) satisfies Effect.Effect<void, never, Scope.Scope | R | KeyDirectory | UsageRecorder | UsageBook>;
