import { describe, expect, it } from "vitest";
import { accountsOf, debtBook, selectReads } from "../../../src/webhooks/alerts/knownDebts.js";
import type { LendingMarket } from "../../../src/webhooks/alerts/lendingMarkets.js";
import type { HealthRead } from "../../../src/webhooks/alerts/readHealthFactors.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const POOL: LendingMarket = { address: address(0xa1), design: "aave", protocol: "AaveV3", related: [] };
const COMET: LendingMarket = { address: address(0xd0), design: "comet", protocol: "CompoundV3", related: [] };
const MARKETS = [POOL, COMET];
const KEY = "markets";
const BORROWER = address(0xb0b0_0001);
const SAVER = address(0xb0b0_0002);
const WALLETS = new Set([BORROWER, SAVER]);
const block = (n: number) => ({ hash: `0x${n}`, parent_hash: `0x${n - 1}` });
const NOTHING = new Set<string>();

/** Every account of `selection` answered: the borrower has debt in the Comet only. */
const answer = (selection: ReturnType<typeof selectReads>): ReadonlyArray<HealthRead> =>
  accountsOf(selection).map(({ wallet, pool }) => ({
    wallet,
    pool,
    healthFactor: wallet === BORROWER && pool === COMET.address ? 1.5 : null,
  }));

/** A book that has read block 1 in full. */
const afterFullRead = () => {
  const book = debtBook();
  const selection = selectReads(undefined, WALLETS, MARKETS, NOTHING, "all");
  book.advance(1, undefined, block(1), KEY, WALLETS, selection, answer(selection));
  return book;
};

const accountsAt = (
  book: ReturnType<typeof debtBook>,
  n: number,
  involved: ReadonlySet<string>,
  moved: "all" | ReadonlySet<string>,
) =>
  accountsOf(selectReads(book.continuing(1, block(n), KEY), WALLETS, MARKETS, involved, moved)).map(
    (a) => `${a.wallet === BORROWER ? "borrower" : "saver"}@${a.design}`,
  );

describe("known debts", () => {
  it("default: with nothing known, every wallet is read in every market", () => {
    const selection = selectReads(undefined, WALLETS, MARKETS, NOTHING, new Set());
    expect(accountsOf(selection)).toHaveLength(4);
    expect(afterFullRead().size(1)).toEqual({ known: 2, indebted: 1 });
  });

  it("behavior: a price move reads only the accounts with debt", () => {
    expect(accountsAt(afterFullRead(), 2, NOTHING, "all")).toEqual(["borrower@comet"]);
  });

  it("behavior: a market's own log reads its accounts with debt, none of another market", () => {
    const book = afterFullRead();
    expect(accountsAt(book, 2, NOTHING, new Set([COMET.address]))).toEqual(["borrower@comet"]);
    expect(accountsAt(book, 2, NOTHING, new Set([POOL.address]))).toEqual([]);
  });

  it("behavior: a wallet the block names is read in every market, debt or not", () => {
    expect(accountsAt(afterFullRead(), 2, new Set([SAVER]), new Set())).toEqual([
      "saver@aave",
      "saver@comet",
    ]);
  });

  it("behavior: a block that does not continue the known debts (another parent, other markets) reads everything", () => {
    const book = afterFullRead();
    expect(book.continuing(1, block(3), KEY)).toBeUndefined();
    expect(book.continuing(1, block(2), "other")).toBeUndefined();
    expect(book.continuing(1, block(2), KEY)).toBeDefined();
  });

  it("behavior: a repaid debt is dropped, a failed read makes the wallet unknown, an unwatched wallet is forgotten", () => {
    const book = afterFullRead();
    const known = book.continuing(1, block(2), KEY);
    const selection = selectReads(known, WALLETS, MARKETS, NOTHING, "all");
    book.advance(1, known, block(2), KEY, WALLETS, selection, [
      { wallet: BORROWER, pool: COMET.address, healthFactor: null },
    ]);
    expect(book.size(1)).toEqual({ known: 2, indebted: 0 });
    expect(accountsAt(book, 3, NOTHING, "all")).toEqual([]);

    const next = book.continuing(1, block(3), KEY);
    const named = selectReads(next, WALLETS, MARKETS, new Set([SAVER]), "all");
    book.advance(1, next, block(3), KEY, new Set([SAVER]), named, [
      { wallet: SAVER, pool: POOL.address, healthFactor: 2 },
    ]);
    // The saver's Comet read failed: unknown, read whole again; the borrower is no longer watched.
    expect(book.size(1)).toEqual({ known: 0, indebted: 0 });
  });

  it("behavior: the watched wallets are one Set until a list changes", () => {
    const book = debtBook();
    const lists = [[BORROWER], [SAVER, BORROWER]];
    const first = book.watched(1, lists);
    expect(first).toEqual(WALLETS);
    expect(book.watched(1, [lists[0]!, lists[1]!])).toBe(first);
    expect(book.watched(1, [lists[0]!, [SAVER]])).not.toBe(first);
  });

  it("behavior: known debts another block replaced meanwhile are not advanced", () => {
    const book = afterFullRead();
    const stale = book.continuing(1, block(2), KEY);
    const full = selectReads(undefined, WALLETS, MARKETS, NOTHING, "all");
    book.advance(1, undefined, block(2), KEY, WALLETS, full, answer(full));
    book.advance(1, stale, { hash: "0xother" }, KEY, WALLETS, [], []);
    expect(book.continuing(1, block(3), KEY)).toBeDefined();
  });
});
