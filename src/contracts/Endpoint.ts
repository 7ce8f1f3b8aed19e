import type { Schema } from "effect";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

type AnySchema = Schema.Schema.AnyNoContext;

/**
 * One request/reply operation: its HTTP route, its NATS subject, and the schemas
 * of what it takes and returns. The gateway routes from it, the API workers decode
 * with it, and the OpenAPI document is generated from it, so the three never drift.
 * Params and query schemas decode from string records; unknown query parameters are ignored.
 */
export interface Endpoint<
  P extends AnySchema = AnySchema,
  Q extends AnySchema = AnySchema,
  B extends AnySchema | undefined = AnySchema | undefined,
  R extends AnySchema = AnySchema,
> {
  /** OpenAPI operationId and the `endpoint` name in usage records. */
  readonly operationId: string;
  readonly method: HttpMethod;
  /** Path template with `{name}` segments, e.g. `/v1/evm/balances/{address}`. */
  readonly path: string;
  /** NATS request/reply subject the API workers serve it on. */
  readonly subject: string;
  /** `key`: requires `X-Svc-Api-Key`; `public`: served to anyone at 0 CU. */
  readonly auth: "key" | "public";
  /** OpenAPI tag. */
  readonly group: string;
  readonly summary: string;
  readonly description?: string;
  readonly params: P;
  readonly query: Q;
  /** Request body schema; `undefined` when the operation takes no body. */
  readonly body: B;
  /** Success response schema (documentation and tests; handlers return plain data). */
  readonly response: R;
  /** Content type of a success response. */
  readonly responseContentType: "application/json" | "image/svg+xml";
}

export type AnyEndpoint = Endpoint;

/** The decoded input a handler of endpoint E receives. */
export interface EndpointInput<E extends AnyEndpoint> {
  readonly params: Schema.Schema.Type<E["params"]>;
  readonly query: Schema.Schema.Type<E["query"]>;
  readonly body: E["body"] extends AnySchema ? Schema.Schema.Type<E["body"]> : undefined;
}

/** Declares an endpoint, keeping its precise schema types for the handler that serves it. */
export const endpoint = <
  P extends AnySchema,
  Q extends AnySchema,
  B extends AnySchema | undefined,
  R extends AnySchema,
>(
  spec: Endpoint<P, Q, B, R>,
): Endpoint<P, Q, B, R> => spec;
