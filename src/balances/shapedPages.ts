import { Effect } from "effect";
import type { Warning } from "../contracts/Common.js";
import { Lru } from "../lib/Lru.js";
import type { HoldingsSnapshot } from "./ChainHoldings.js";
import type { BalanceEntry } from "./toBalanceEntry.js";

/** One page of a balances response, shaped and serialised, with what the next cursor needs. */
export interface ShapedPage {
  /** The `balances` array as JSON. */
  readonly json: string;
  /** The page's last entry, when there are more pages after it. */
  readonly continueAfter: BalanceEntry | undefined;
  /** Offsets of `historical_prices` some chains could not price (never kept: those pages are not cached). */
  readonly pastPriceWarnings: ReadonlyArray<Warning>;
}

/**
 * Pages already shaped and serialised, by snapshot and query. Serving a cached wallet read again
 * used to shape, sort and serialise the same holdings on every request: more CPU than the bus hop
 * itself. A snapshot is named by the identity of its per-chain holdings, which are the read
 * cache's own values, so a new indexed block (a new read, a new object) is a new key: a page here
 * is never older than the index, and no time-based expiry is involved. Pages that depend on the
 * clock (historical prices) are not kept.
 */
export const makeShapedPages = (entries: number, maxBytes: number) => {
  const serials = new WeakMap<object, number>();
  let lastSerial = 0;
  const serialOf = (holdings: object) => {
    let serial = serials.get(holdings);
    if (serial === undefined) {
      serial = ++lastSerial;
      serials.set(holdings, serial);
    }
    return serial;
  };
  const pages = new Lru<string, ShapedPage>(entries, {
    maxBytes,
    // UTF-16 strings, plus the entry and the last entry's object.
    sizeOf: (key, page) => 2 * (key.length + page.json.length) + 256,
  });
  const keyOf = (snapshot: HoldingsSnapshot, query: string) =>
    `${snapshot.byChain.map(({ chain, holdings }) => `${chain.chain_id}:${serialOf(holdings)}`).join(",")}|${query}`;

  return {
    /** The page for `query` (every parameter that shapes it) over `snapshot`, shaped by `shape` when not kept. */
    through: <E, R>(
      snapshot: HoldingsSnapshot,
      query: string,
      shape: Effect.Effect<ShapedPage, E, R>,
    ): Effect.Effect<ShapedPage, E, R> =>
      Effect.suspend(() => {
        const key = keyOf(snapshot, query);
        const kept = pages.get(key);
        return kept !== undefined ? Effect.succeed(kept) : Effect.tap(shape, (page) => pages.set(key, page));
      }),
    lookups: () => ({ hits: pages.hits, misses: pages.misses }),
  } as const;
};

export type ShapedPages = ReturnType<typeof makeShapedPages>;
