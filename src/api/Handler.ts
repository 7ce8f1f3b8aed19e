import type { Effect } from "effect";
import type { ApiError } from "../contracts/ApiError.js";
import type { AnyEndpoint, EndpointInput } from "../contracts/Endpoint.js";
import type { RequestEnvelope } from "../contracts/Envelope.js";
import type { RequestContext } from "./RequestContext.js";

/**
 * A successful answer the runner may send again, without decoding the input or running the
 * handler, to a request with the same replay key, for as long as `fresh` holds.
 */
export interface KeptReply {
  /** Whether the handler would still answer exactly this now (e.g. no block indexed since). */
  readonly fresh: () => boolean;
  /** The body for a request received at `receivedAt` (ms): the kept text with its per-request parts. */
  readonly body: (receivedAt: number) => Uint8Array;
  /** Approximate bytes it holds, for the runner's memory budget. */
  readonly bytes: number;
}

/** A handler's answer: the body, what it cost, and optionally a status and headers. */
export interface HandlerResult {
  /** JSON-serialisable data, or a string sent as is (e.g. an SVG). */
  readonly body: unknown;
  /** Compute units this request costs (charged only because it succeeded). */
  readonly cu: number;
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** This answer, to send again to the same request while it stays exact (routes with a replay key). */
  readonly keep?: KeptReply;
}

export type Handler<E extends AnyEndpoint, R> = (
  input: EndpointInput<E>,
) => Effect.Effect<HandlerResult, ApiError, R | RequestContext>;

/**
 * The name of a request as far as its answer goes, from the raw envelope, or `undefined` when it
 * has none (the request is then always served by the handler). Two envelopes with the same key
 * must decode to the same input, and the handler's answer must depend on nothing else but what
 * its kept reply's `fresh` checks and the clock its `body` is given.
 */
export type ReplayKey = (envelope: RequestEnvelope) => string | undefined;

/** An endpoint paired with the handler that serves it. */
export interface Route<R> {
  readonly endpoint: AnyEndpoint;
  readonly handler: Handler<AnyEndpoint, R>;
  readonly replayKey?: ReplayKey;
}

/** Pairs an endpoint with its handler, checking the handler against the endpoint's schemas. */
export const route = <E extends AnyEndpoint, R>(
  endpoint: E,
  handler: Handler<E, R>,
  options: { readonly replayKey?: ReplayKey } = {},
): Route<R> => ({
  endpoint,
  handler: handler as unknown as Handler<AnyEndpoint, R>,
  ...(options.replayKey === undefined ? {} : { replayKey: options.replayKey }),
});
