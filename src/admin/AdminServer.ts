import { type Msg, type NatsConnection, headers as natsHeaders } from "@nats-io/transport-node";
import { Effect, Either, ParseResult, Runtime, Schema } from "effect";
import type { AdminOperation } from "../contracts/Admin.js";
import { HEADER } from "../contracts/Envelope.js";

/** A failure an operator can act on: a code and a sentence. */
export class AdminFailure extends Schema.TaggedError<AdminFailure>()("AdminFailure", {
  code: Schema.String,
  message: Schema.String,
}) {}

export interface AdminHandler<R> {
  readonly operation: AdminOperation<Schema.Schema.AnyNoContext, Schema.Schema.AnyNoContext>;
  readonly handle: (payload: unknown) => Effect.Effect<unknown, AdminFailure, R>;
}

/** Pairs an admin operation with its implementation, typed by the operation's schemas. */
export const adminHandler = <P extends Schema.Schema.AnyNoContext, Rs extends Schema.Schema.AnyNoContext, R>(
  operation: AdminOperation<P, Rs>,
  handle: (payload: Schema.Schema.Type<P>) => Effect.Effect<Schema.Schema.Type<Rs>, AdminFailure, R>,
): AdminHandler<R> => ({
  operation,
  handle: handle as (payload: unknown) => Effect.Effect<unknown, AdminFailure, R>,
});

const reply = (msg: Msg, status: number, body: unknown, error?: AdminFailure) => {
  const h = natsHeaders();
  h.set(HEADER.status, String(status));
  if (error !== undefined) {
    h.set(HEADER.serviceError, error.message.replace(/[\r\n]+/g, " "));
    h.set(HEADER.serviceErrorCode, String(status));
  }
  msg.respond(JSON.stringify(body), { headers: h });
};

/** Serves admin operations in the `admin` queue group; bad payloads get a 400 reply, defects a 500. */
export const serveAdmin = <R>(nc: NatsConnection, handlers: ReadonlyArray<AdminHandler<R>>) =>
  Effect.gen(function* () {
    const run = Runtime.runPromiseExit(yield* Effect.runtime<R>());
    for (const { operation, handle } of handlers) {
      const decode = Schema.decodeUnknownEither(operation.payload, { onExcessProperty: "error" });
      const subscription = nc.subscribe(operation.subject, {
        queue: "admin",
        callback: (error, msg) => {
          if (error !== null) return;
          let raw: unknown;
          try {
            raw = msg.data.length === 0 ? {} : msg.json();
          } catch {
            raw = undefined;
          }
          const payload = decode(raw);
          if (Either.isLeft(payload)) {
            const failure = new AdminFailure({
              code: "INVALID_PAYLOAD",
              message: ParseResult.TreeFormatter.formatErrorSync(payload.left),
            });
            return reply(msg, 400, { error: failure.message, code: failure.code }, failure);
          }
          void run(handle(payload.right)).then((exit) => {
            if (exit._tag === "Success") return reply(msg, 200, exit.value);
            const failure =
              exit.cause._tag === "Fail"
                ? exit.cause.error
                : new AdminFailure({
                    code: "INTERNAL_ERROR",
                    message: "The admin operation failed unexpectedly.",
                  });
            reply(
              msg,
              failure.code === "NOT_FOUND" ? 404 : failure.code === "INTERNAL_ERROR" ? 500 : 400,
              { error: failure.message, code: failure.code },
              failure,
            );
          });
        },
      });
      yield* Effect.addFinalizer(() => Effect.promise(() => subscription.drain()));
    }
  });
