import type { Effect } from "effect";
import type { ApiError } from "../contracts/ApiError.js";
import type { AnyEndpoint, EndpointInput } from "../contracts/Endpoint.js";
import type { RequestContext } from "./RequestContext.js";

/** A handler's answer: the body, what it cost, and optionally a status and headers. */
export interface HandlerResult {
  /** JSON-serialisable data, or a string sent as is (e.g. an SVG). */
  readonly body: unknown;
  /** Compute units this request costs (charged only because it succeeded). */
  readonly cu: number;
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

export type Handler<E extends AnyEndpoint, R> = (
  input: EndpointInput<E>,
) => Effect.Effect<HandlerResult, ApiError, R | RequestContext>;

/** An endpoint paired with the handler that serves it. */
export interface Route<R> {
  readonly endpoint: AnyEndpoint;
  readonly handler: Handler<AnyEndpoint, R>;
}

/** Pairs an endpoint with its handler, checking the handler against the endpoint's schemas. */
export const route = <E extends AnyEndpoint, R>(endpoint: E, handler: Handler<E, R>): Route<R> => ({
  endpoint,
  handler: handler as unknown as Handler<AnyEndpoint, R>,
});
