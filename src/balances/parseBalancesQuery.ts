import { Either } from "effect";
import type { MetadataField } from "./decorateEntry.js";

/** Most offsets `historical_prices` takes (spec section 8). */
export const MAX_HISTORICAL_OFFSETS = 3;
/** Largest offset accepted: ten years of hours, well past any chain's indexed history. */
export const MAX_OFFSET_HOURS = 87_600;
export const DEFAULT_LIMIT = 1000;
export const MAX_LIMIT = 1000;

export interface QueryError {
  readonly code: string;
  readonly message: string;
}

const invalid = (code: string, message: string): Either.Either<never, QueryError> =>
  Either.left({ code, message });

/** `filters`: `erc20` or `native`; omitted means both. */
export const parseFilters = (
  raw: string | undefined,
): Either.Either<"erc20" | "native" | undefined, QueryError> =>
  raw === undefined
    ? Either.right(undefined)
    : raw === "erc20" || raw === "native"
      ? Either.right(raw)
      : invalid("INVALID_FILTERS", `filters must be "erc20" or "native" (got "${raw.slice(0, 40)}").`);

/** `metadata`: comma-separated from logo, url, pools. */
export const parseMetadata = (
  raw: string | undefined,
): Either.Either<ReadonlySet<MetadataField>, QueryError> => {
  if (raw === undefined) return Either.right(new Set());
  const items = raw.split(",").map((s) => s.trim().toLowerCase());
  const unknown = items.filter((item) => item !== "logo" && item !== "url" && item !== "pools");
  if (unknown.length > 0) {
    return invalid(
      "INVALID_METADATA",
      `metadata takes a comma-separated list of logo, url, pools (got "${raw.slice(0, 60)}").`,
    );
  }
  return Either.right(new Set(items as ReadonlyArray<MetadataField>));
};

/**
 * A boolean flag: `true`/`false` (any case), `1`/`0`; omitted is false. Given
 * bare or empty (`?exclude_spam_tokens`, `?exclude_spam_tokens=`) it is true,
 * as public clients of the original API send it that way to turn it on.
 */
export const parseBoolean = (name: string, raw: string | undefined): Either.Either<boolean, QueryError> => {
  if (raw === undefined) return Either.right(false);
  const value = raw.trim().toLowerCase();
  if (value === "" || value === "true" || value === "1") return Either.right(true);
  if (value === "false" || value === "0") return Either.right(false);
  return invalid(
    "INVALID_BOOLEAN",
    `${name} must be true, false, 1, 0 or given without a value (got "${raw.slice(0, 40)}").`,
  );
};

/**
 * `historical_prices`: 1 to 3 comma-separated whole numbers of hours, each at
 * least 1 and given once, in request order. A repeated offset is refused rather
 * than answered once: the response has one entry per requested offset, and a
 * client that repeats one has most likely mistyped another.
 */
export const parseHistoricalPrices = (
  raw: string | undefined,
): Either.Either<ReadonlyArray<number>, QueryError> => {
  if (raw === undefined) return Either.right([]);
  const items = raw.split(",").map((s) => s.trim());
  if (items.length > MAX_HISTORICAL_OFFSETS) {
    return invalid(
      "TOO_MANY_HISTORICAL_PRICES",
      `historical_prices takes at most ${MAX_HISTORICAL_OFFSETS} offsets (got ${items.length}).`,
    );
  }
  const hours: Array<number> = [];
  for (const item of items) {
    const value = /^[0-9]{1,6}$/.test(item) ? Number(item) : Number.NaN;
    if (!Number.isInteger(value) || value < 1 || value > MAX_OFFSET_HOURS) {
      return invalid(
        "INVALID_HISTORICAL_PRICES",
        `historical_prices must be whole numbers of hours from 1 to ${MAX_OFFSET_HOURS}, comma-separated (got "${item.slice(0, 40)}").`,
      );
    }
    if (hours.includes(value)) {
      return invalid(
        "DUPLICATE_HISTORICAL_PRICES",
        `historical_prices gives the offset ${value} more than once; give each offset once.`,
      );
    }
    hours.push(value);
  }
  return Either.right(hours);
};

/** `limit`: a whole number of at least 1; above 1000 it is reduced to 1000. */
export const parseLimit = (raw: string | undefined): Either.Either<number, QueryError> => {
  if (raw === undefined) return Either.right(DEFAULT_LIMIT);
  const value = /^[0-9]{1,12}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!Number.isInteger(value) || value < 1) {
    return invalid(
      "INVALID_LIMIT",
      `limit must be a whole number from 1 to ${MAX_LIMIT} (got "${raw.slice(0, 40)}").`,
    );
  }
  return Either.right(Math.min(value, MAX_LIMIT));
};
