import { randomBytes } from "node:crypto";
import { Either } from "effect";
import { describe, expect, it } from "vitest";
import { nextOffset, pageOf, readOffset } from "../../../src/balances/pageBalances.js";
import { CURSOR_TTL_SECONDS } from "../../../src/balances/pageCursor.js";
import type { BalanceEntry } from "../../../src/balances/toBalanceEntry.js";

const secret = randomBytes(32);
const WALLET = "0xd8da6bf26964af9d7eed9e03e53415d37aa96045";
const entry = (chain_id: number, address: string, value_usd?: number): BalanceEntry => ({
  chain: "c",
  chain_id,
  address,
  amount: "1",
  ...(value_usd === undefined ? {} : { value_usd }),
});
const sorted = [
  entry(1, "0x03", 300),
  entry(1, "0x02", 200),
  entry(8453, "0x01", 200),
  entry(1, "0x04"),
  entry(1, "0x05"),
];
const scope = { wallet: WALLET, query: "q", nowSeconds: 1_700_000_000 };
const cursorAfter = (last: BalanceEntry, issued = scope.nowSeconds) =>
  Either.getOrThrow(
    readOffset(
      secret,
      nextOffset(secret, last, { wallet: WALLET, query: "q", blocks: [[1, 10]], issued }),
      scope,
    ),
  );

describe("balances paging", () => {
  it("default: pages follow each other without gaps or repeats, valued entries first", () => {
    const first = pageOf(sorted, undefined, 2);
    expect(first.page.map((e) => e.address)).toEqual(["0x03", "0x02"]);
    expect(first.more).toBe(true);
    const second = pageOf(sorted, cursorAfter(first.page.at(-1)!), 2);
    expect(second.page.map((e) => e.address)).toEqual(["0x01", "0x04"]);
    const third = pageOf(sorted, cursorAfter(second.page.at(-1)!), 2);
    expect(third.page.map((e) => e.address)).toEqual(["0x05"]);
    expect(third.more).toBe(false);
  });

  it("behavior: a page starts after the cursor's entry even when that entry has gone", () => {
    const gone = entry(1, "0x025", 250);
    expect(pageOf(sorted, cursorAfter(gone), 10).page.map((e) => e.address)).toEqual([
      "0x02",
      "0x01",
      "0x04",
      "0x05",
    ]);
    expect(pageOf(sorted, cursorAfter(entry(9, "0xff")), 10).page).toEqual([]);
  });

  it("error: an offset for another wallet or query, or a forged one, is INVALID_OFFSET", () => {
    const offset = nextOffset(secret, sorted[0]!, {
      wallet: WALLET,
      query: "q",
      blocks: [],
      issued: scope.nowSeconds,
    });
    for (const [raw, at] of [
      [offset, { ...scope, wallet: "0x0000000000000000000000000000000000000001" }],
      [offset, { ...scope, query: "other" }],
      [`${offset}x`, scope],
      ["nonsense", scope],
    ] as const) {
      expect(Either.getLeft(readOffset(secret, raw, at))).toEqual(
        expect.objectContaining({ _tag: "Some", value: expect.objectContaining({ code: "INVALID_OFFSET" }) }),
      );
    }
  });

  it("error: an offset older than the cursor lifetime is STALE_OFFSET; one just within it is accepted", () => {
    const issued = scope.nowSeconds - CURSOR_TTL_SECONDS;
    const fresh = nextOffset(secret, sorted[0]!, { wallet: WALLET, query: "q", blocks: [], issued });
    expect(Either.isRight(readOffset(secret, fresh, scope))).toBe(true);
    const stale = nextOffset(secret, sorted[0]!, {
      wallet: WALLET,
      query: "q",
      blocks: [],
      issued: issued - 1,
    });
    const result = readOffset(secret, stale, scope);
    expect(Either.isLeft(result) && result.left.code).toBe("STALE_OFFSET");
  });

  it("default: no offset is a first page", () => {
    expect(readOffset(secret, undefined, scope)).toEqual(Either.right(undefined));
  });
});
