import type { IncomingHttpHeaders } from "node:http";
import { Either } from "effect";

/** The header every client may send the API key in (lower case, as Node gives header names). */
export const API_KEY_HEADER = "x-svc-api-key";

/** An HTTP header name: an RFC 9110 token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Headers the gateway reads for something else, or that carry framing or other
 * credentials: taking the key from one of them would break that meaning.
 */
const RESERVED = new Set([
  "content-type",
  "content-length",
  "transfer-encoding",
  "connection",
  "host",
  "cookie",
  "x-request-id",
  "if-none-match",
]);

/**
 * Parses API_KEY_HEADERS: a comma-separated list of extra header names that may
 * carry the API key (a migrating client's old header), lower-cased. Empty
 * entries are skipped; `X-Svc-Api-Key` itself is always accepted and may be
 * listed. Left: what the setting accepts, as a sentence fragment.
 */
export const parseApiKeyHeaders = (raw: string): Either.Either<ReadonlyArray<string>, string> => {
  const names = raw
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name.length > 0);
  const valid = names.every((name) => HEADER_NAME.test(name) && name.length <= 64 && !RESERVED.has(name));
  return valid
    ? Either.right([...new Set(names)].filter((name) => name !== API_KEY_HEADER))
    : Either.left(
        `a comma-separated list of HTTP header names (letters, digits and !#$%&'*+.^_\`|~-, at most 64 characters each), none of ${[...RESERVED].join(", ")}`,
      );
};

export type KeyLookup =
  | { readonly kind: "none" }
  | { readonly kind: "key"; readonly key: string }
  | { readonly kind: "conflict"; readonly names: ReadonlyArray<string> };

/**
 * The API key of a request, from `X-Svc-Api-Key` or one of the extra headers.
 * Several of them with the same value are one key; with different values the
 * request is refused rather than one picked, since either choice could act as
 * the wrong team.
 */
export const findApiKey = (headers: IncomingHttpHeaders, extra: ReadonlyArray<string>): KeyLookup => {
  const given: Array<{ readonly name: string; readonly value: string }> = [];
  for (const name of [API_KEY_HEADER, ...extra]) {
    const value = headers[name];
    if (typeof value === "string" && value.length > 0) given.push({ name, value });
  }
  const first = given[0];
  if (first === undefined) return { kind: "none" };
  return given.every((g) => g.value === first.value)
    ? { kind: "key", key: first.value }
    : { kind: "conflict", names: given.map((g) => g.name) };
};
