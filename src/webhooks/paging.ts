import { InvalidRequest } from "../contracts/ApiError.js";

/** Page size of the list and addresses routes when `limit` is absent, and the largest one served. */
export const PAGE_LIMIT = 100;

const queryError = (name: string, reason: string) =>
  new InvalidRequest({ code: "INVALID_QUERY_PARAMETER", message: `query parameter "${name}" ${reason}.` });

/** `limit`: an integer of at least 1; values above 100 are reduced to 100, as balances does with 1000. */
export const parseLimit = (raw: string | undefined): InvalidRequest | number => {
  if (raw === undefined) return PAGE_LIMIT;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1)
    return queryError("limit", "must be an integer from 1 to 100");
  return Math.min(Number(raw), PAGE_LIMIT);
};

/**
 * `offset`: an opaque cursor naming the last item of the previous page (base64url
 * of its sort key). Paging by key rather than by position keeps pages stable
 * while items are added or removed between requests.
 */
export const encodeCursor = (lastKey: string): string => Buffer.from(lastKey, "utf8").toString("base64url");

/** The sort key in a cursor, or an error when it is not one this service issued. */
export const decodeCursor = (
  raw: string | undefined,
  isKey: (key: string) => boolean,
): InvalidRequest | string | undefined => {
  if (raw === undefined) return undefined;
  const key = /^[A-Za-z0-9_-]{1,200}$/.test(raw) ? Buffer.from(raw, "base64url").toString("utf8") : "";
  return isKey(key) && encodeCursor(key) === raw
    ? key
    : queryError("offset", "is not a cursor returned in next_offset");
};

/** One page of sorted keys after `after`, and the cursor of the next page when there is one. */
export const pageOf = <A>(
  sorted: ReadonlyArray<A>,
  keyOf: (item: A) => string,
  after: string | undefined,
  limit: number,
): { readonly items: ReadonlyArray<A>; readonly next: string | undefined } => {
  const start = after === undefined ? 0 : sorted.findIndex((item) => keyOf(item) > after);
  const rest = start === -1 ? [] : sorted.slice(start);
  const items = rest.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next: rest.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : undefined };
};
