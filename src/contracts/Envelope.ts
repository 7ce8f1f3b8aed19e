/**
 * What travels on NATS for one API request, so that other services can call the
 * same subjects the gateway calls.
 *
 * Request: JSON `{ "params": {...}, "query": {...}, "body": ... }` with headers
 * `X-Svc-Api-Key`, `X-Request-Id` (and `If-None-Match` when given).
 * Reply: the response body bytes as they go to the HTTP client, with the HTTP
 * status in `Svc-Status`, response headers as NATS headers, and for errors the
 * NATS services convention `Nats-Service-Error` / `Nats-Service-Error-Code`.
 */
export interface RequestEnvelope {
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

export const HEADER = {
  apiKey: "X-Svc-Api-Key",
  requestId: "X-Request-Id",
  ifNoneMatch: "If-None-Match",
  status: "Svc-Status",
  contentType: "Content-Type",
  computeUnits: "X-Compute-Units",
  retryAfter: "Retry-After",
  cacheControl: "Cache-Control",
  etag: "ETag",
  location: "Location",
  serviceError: "Nats-Service-Error",
  serviceErrorCode: "Nats-Service-Error-Code",
} as const;

/** Reply headers the gateway copies onto the HTTP response (lower-case HTTP names). */
export const FORWARDED_REPLY_HEADERS: ReadonlyArray<readonly [nats: string, http: string]> = [
  [HEADER.contentType, "content-type"],
  [HEADER.computeUnits, "x-compute-units"],
  [HEADER.retryAfter, "retry-after"],
  [HEADER.cacheControl, "cache-control"],
  [HEADER.etag, "etag"],
  [HEADER.location, "location"],
];
