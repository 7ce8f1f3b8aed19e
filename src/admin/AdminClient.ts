import type { NatsConnection } from "@nats-io/transport-node";
import { Data, Effect, Schema } from "effect";
import type { AdminOperation } from "../contracts/Admin.js";
import { HEADER } from "../contracts/Envelope.js";

/** An admin call that failed: the service's error, or no answer at all. */
export class AdminCallError extends Data.TaggedError("AdminCallError")<{
  readonly message: string;
  readonly code: string;
}> {}

/** Calls one admin operation over NATS and decodes the answer with its schema. */
export const callAdmin = <P extends Schema.Schema.AnyNoContext, R extends Schema.Schema.AnyNoContext>(
  nc: NatsConnection,
  operation: AdminOperation<P, R>,
  payload: Schema.Schema.Encoded<P>,
  timeoutMs = 10_000,
): Effect.Effect<Schema.Schema.Type<R>, AdminCallError> =>
  Effect.gen(function* () {
    const msg = yield* Effect.tryPromise({
      try: () => nc.request(operation.subject, JSON.stringify(payload), { timeout: timeoutMs }),
      catch: (cause) =>
        new AdminCallError({
          code: "NO_ANSWER",
          message: `No answer on ${operation.subject}: is the service running? (${cause instanceof Error ? cause.message : String(cause)})`,
        }),
    });
    const error = msg.headers?.get(HEADER.serviceError);
    if (error)
      return yield* new AdminCallError({
        code: msg.headers?.get(HEADER.serviceErrorCode) ?? "500",
        message: error,
      });
    return yield* Schema.decodeUnknown(operation.response)(msg.json()).pipe(
      Effect.mapError((e) => new AdminCallError({ code: "BAD_ANSWER", message: e.message })),
    );
  });
