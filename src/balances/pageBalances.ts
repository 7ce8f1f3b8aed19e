import { Either } from "effect";
import { CURSOR_TTL_SECONDS, type CursorState, decodeCursor, encodeCursor } from "./pageCursor.js";
import { type BalanceEntry, compareEntries } from "./toBalanceEntry.js";

/** A 400 a paging parameter earns: `code` and a sentence. */
export interface PagingError {
  readonly code: "INVALID_OFFSET" | "STALE_OFFSET";
  readonly message: string;
}

/** Who is paging through what: a cursor is valid only for the same wallet and query. */
export interface PagingScope {
  readonly wallet: string;
  /** Fingerprint of the query's chains and filters. */
  readonly query: string;
  readonly nowSeconds: number;
}

/**
 * The cursor an `offset` carries: none on a first page; a 400 for one this service did not issue
 * for this wallet and query (INVALID_OFFSET) or one older than CURSOR_TTL_SECONDS (STALE_OFFSET).
 */
export const readOffset = (
  secret: Uint8Array,
  offset: string | undefined,
  scope: PagingScope,
): Either.Either<CursorState | undefined, PagingError> => {
  if (offset === undefined) return Either.right(undefined);
  const cursor = decodeCursor(secret, offset);
  if (cursor === undefined || cursor.wallet !== scope.wallet || cursor.query !== scope.query) {
    return Either.left({
      code: "INVALID_OFFSET",
      message: "offset is not a next_offset this service returned for this wallet and these parameters.",
    });
  }
  if (scope.nowSeconds - cursor.issued > CURSOR_TTL_SECONDS)
    return Either.left({ code: "STALE_OFFSET", message: "offset has expired; start again without it." });
  return Either.right(cursor);
};

/**
 * One page of entries sorted by `compareEntries`: those after the cursor's last entry (all on a
 * first page), at most `limit`. The cursor names the last entry by its sort key, so a page starts
 * right after it even when that entry itself has since changed or gone.
 */
export const pageOf = <E extends BalanceEntry>(
  sorted: ReadonlyArray<E>,
  cursor: CursorState | undefined,
  limit: number,
): { readonly page: ReadonlyArray<E>; readonly more: boolean } => {
  let start = 0;
  if (cursor !== undefined) {
    const [value, chainId, address] = cursor.after;
    const last: BalanceEntry = {
      chain: "",
      chain_id: chainId,
      address,
      amount: "0",
      ...(value === null ? {} : { value_usd: value }),
    };
    const after = sorted.findIndex((entry) => compareEntries(entry, last) > 0);
    start = after === -1 ? sorted.length : after;
  }
  return { page: sorted.slice(start, start + limit), more: start + limit < sorted.length };
};

/** The `next_offset` after `last`, pinning the chains' blocks and the first page's time. */
export const nextOffset = (
  secret: Uint8Array,
  last: BalanceEntry,
  scope: Omit<CursorState, "after">,
): string => encodeCursor(secret, { ...scope, after: [last.value_usd ?? null, last.chain_id, last.address] });
