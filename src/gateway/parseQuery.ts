/** Limits that keep a hostile query string cheap to refuse. */
export const MAX_QUERY_PARAMETERS = 64;
export const MAX_QUERY_VALUE_LENGTH = 4096;

export type QueryParse =
  | { readonly kind: "ok"; readonly query: Record<string, string> }
  | { readonly kind: "invalid"; readonly code: string; readonly message: string };

/**
 * Parses a query string into single values. A parameter given twice is an error
 * (which of the two would win is a guess the caller should not have to make).
 */
export const parseQuery = (search: string): QueryParse => {
  const query: Record<string, string> = Object.create(null);
  if (search.length === 0) return { kind: "ok", query };
  let count = 0;
  for (const [name, value] of new URLSearchParams(search)) {
    if (++count > MAX_QUERY_PARAMETERS) {
      return {
        kind: "invalid",
        code: "TOO_MANY_QUERY_PARAMETERS",
        message: `At most ${MAX_QUERY_PARAMETERS} query parameters are accepted.`,
      };
    }
    if (name in query) {
      return {
        kind: "invalid",
        code: "DUPLICATE_QUERY_PARAMETER",
        message: `Query parameter "${name.slice(0, 64)}" is given more than once; give it once (lists are comma-separated).`,
      };
    }
    if (value.length > MAX_QUERY_VALUE_LENGTH) {
      return {
        kind: "invalid",
        code: "QUERY_PARAMETER_TOO_LONG",
        message: `Query parameter "${name.slice(0, 64)}" is longer than ${MAX_QUERY_VALUE_LENGTH} characters.`,
      };
    }
    query[name] = value;
  }
  return { kind: "ok", query };
};
