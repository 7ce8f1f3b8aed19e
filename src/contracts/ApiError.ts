import { Schema } from "effect";

/**
 * The closed set of errors a request can end in. They cross NATS (as reply headers
 * plus a JSON body), so they are Schema classes; each maps to exactly one HTTP
 * status in `statusOf`. `code` is a stable machine-readable string for clients.
 */

/** 400: the request is malformed or a parameter is invalid; `message` says which and why. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  code: Schema.String,
  message: Schema.String,
}) {}

const UNAUTHENTICATED_MESSAGES = {
  MissingKey: "The X-Svc-Api-Key header is missing.",
  MalformedKey: "The X-Svc-Api-Key header is not a well-formed API key.",
  UnknownKey: "The API key is not known.",
  RevokedKey: "The API key has been revoked.",
} as const;

/** 401: no usable API key. `reason` says which of the four cases applies. */
export class Unauthenticated extends Schema.TaggedError<Unauthenticated>()("Unauthenticated", {
  reason: Schema.Literal("MissingKey", "MalformedKey", "UnknownKey", "RevokedKey"),
}) {
  override get message(): string {
    return UNAUTHENTICATED_MESSAGES[this.reason];
  }
}

/** 402: the team's monthly compute-unit quota is used up. */
export class QuotaExceeded extends Schema.TaggedError<QuotaExceeded>()("QuotaExceeded", {
  quota: Schema.Number,
  used: Schema.Number,
}) {
  override get message(): string {
    return `The team's monthly quota of ${this.quota} compute units is used up (${this.used} used).`;
  }
}

/** 404: the resource does not exist for this caller (never a hint that it exists for another team). */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  code: Schema.String,
  message: Schema.String,
}) {}

/** 409: a concurrent change won; the caller may retry. */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  code: Schema.String,
  message: Schema.String,
}) {}

/** 429: the key's request rate is over its limit. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  retryAfterSeconds: Schema.Number,
}) {
  override get message(): string {
    return `Too many requests for this API key; retry after ${this.retryAfterSeconds} s.`;
  }
}

/** 503: the endpoint or a dependency (RPC node, store) cannot answer now. */
export class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", {
  code: Schema.String,
  message: Schema.String,
}) {}

/** 500: a bug. Logged with the request id; the message is safe to show. */
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", {
  message: Schema.String,
}) {}

export type ApiError =
  | InvalidRequest
  | Unauthenticated
  | QuotaExceeded
  | NotFound
  | Conflict
  | RateLimited
  | Unavailable
  | InternalError;

/** HTTP status for each error: the one place where errors meet status codes. */
export const statusOf = (error: ApiError): number => {
  switch (error._tag) {
    case "InvalidRequest":
      return 400;
    case "Unauthenticated":
      return 401;
    case "QuotaExceeded":
      return 402;
    case "NotFound":
      return 404;
    case "Conflict":
      return 409;
    case "RateLimited":
      return 429;
    case "Unavailable":
      return 503;
    case "InternalError":
      return 500;
  }
};

/** Machine code for each error, as sent in the body's `code` field. */
export const codeOf = (error: ApiError): string => {
  switch (error._tag) {
    case "InvalidRequest":
    case "NotFound":
    case "Conflict":
    case "Unavailable":
      return error.code;
    case "Unauthenticated":
      return {
        MissingKey: "MISSING_API_KEY",
        MalformedKey: "MALFORMED_API_KEY",
        UnknownKey: "UNKNOWN_API_KEY",
        RevokedKey: "REVOKED_API_KEY",
      }[error.reason];
    case "QuotaExceeded":
      return "QUOTA_EXCEEDED";
    case "RateLimited":
      return "RATE_LIMITED";
    case "InternalError":
      return "INTERNAL_ERROR";
  }
};

/** The JSON body of every error response, over HTTP and over NATS. */
export interface ErrorBody {
  readonly error: string;
  readonly code: string;
}

export const errorBody = (error: ApiError): ErrorBody => ({ error: error.message, code: codeOf(error) });
