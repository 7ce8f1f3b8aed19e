import { describe, expect, it } from "vitest";
import { AddressTable } from "../../../src/webhooks/notifier/AddressTable.js";
import { WatchedLists } from "../../../src/webhooks/notifier/WatchedLists.js";
import { encodeList } from "../../../src/webhooks/store/addressLists.js";
import { packAddressList } from "../../../src/webhooks/store/packedAddressList.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const pack = (addresses: ReadonlyArray<string>) =>
  packAddressList(new TextEncoder().encode(encodeList([...addresses].sort())))!;
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => address(from + i));

/** A seeded generator, so a failing sequence can be replayed. */
const random = (seed: number) => () => {
  seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x9e3779b9) | 0;
  return ((seed ^ (seed >>> 13)) >>> 0) / 2 ** 32;
};

/**
 * A table that, after every change made to it, checks that each (address, webhook) pair in
 * `mustStay` is still there: what a block matched at that instant would find.
 */
class WatchingTable extends AddressTable {
  mustStay: ReadonlyArray<readonly [string, string]> = [];
  changes = 0;
  readonly #check = () => {
    this.changes++;
    for (const [a, id] of this.mustStay)
      if (!this.webhooksFor(a).includes(id)) throw new Error(`${a} was not watched by ${id} for a moment`);
  };
  override addKey(keys: Uint8Array, at: number, webhookId: string) {
    super.addKey(keys, at, webhookId);
    this.#check();
  }
  override removeKey(keys: Uint8Array, at: number, webhookId: string) {
    super.removeKey(keys, at, webhookId);
    this.#check();
  }
}

describe("the webhooks' lists applied to the notifier's table", () => {
  it("behavior: each new list is applied as a difference: addresses that stay are never absent, and the table ends equal to the lists", () => {
    const next = random(11);
    const table = new WatchingTable();
    const lists = new WatchedLists(table);
    const current = new Map<string, ReadonlyArray<string>>();
    let revision = 0;
    for (let step = 0; step < 300; step++) {
      const id = `wh${Math.floor(next() * 4)}`;
      // Overlapping windows of a small universe: lists grow, shrink, move and share addresses.
      const from = Math.floor(next() * 400);
      const list = range(from, from + Math.floor(next() * 300)).filter(() => next() < 0.8);
      const before = current.get(id) ?? [];
      const after = new Set(list);
      table.mustStay = before.filter((a) => after.has(a)).map((a) => [a, id] as const);
      const change = lists.apply(id, ++revision, pack(list));
      expect(change).toEqual({
        added: list.filter((a) => !before.includes(a)).length,
        removed: before.filter((a) => !after.has(a)).length,
      });
      current.set(id, list);
    }
    table.mustStay = [];
    for (let n = 0; n < 800; n++) {
      const watchers = [...current].filter(([, list]) => list.includes(address(n))).map(([id]) => id);
      expect([...lists.webhooksFor(address(n))].sort(), address(n)).toEqual(watchers.sort());
    }
    expect(lists.size).toBe(new Set([...current.values()].flat()).size);
  });

  it("behavior: a list of 100,000 grows by 100,000 and shrinks back without touching the 100,000 that stay", () => {
    const table = new WatchingTable();
    const lists = new WatchedLists(table);
    const kept = range(0, 100_000);
    const more = range(100_000, 200_000);
    lists.apply("wh", 1, pack(kept));
    // Checking every kept pair after each of 200,000 changes is too slow: a sample of them.
    table.mustStay = kept.filter((_, i) => i % 20_000 === 0).map((a) => [a, "wh"] as const);
    table.changes = 0;
    expect(lists.apply("wh", 2, pack([...kept, ...more]))).toEqual({ added: 100_000, removed: 0 });
    expect(lists.apply("wh", 3, pack(kept))).toEqual({ added: 0, removed: 100_000 });
    // Only the addresses that came and went were changed.
    expect(table.changes).toBe(200_000);
    expect(lists.size).toBe(100_000);
    expect(lists.webhooksFor(more[0]!)).toEqual([]);
    expect(lists.webhooksFor(kept[99_999]!)).toEqual(["wh"]);
  });

  it("behavior: an entry at or below the revision held changes nothing; a deletion ends the webhook's matches and no one else's", () => {
    const lists = new WatchedLists();
    lists.apply("a", 5, pack([address(1), address(2)]));
    lists.apply("b", 6, pack([address(2), address(3)]));
    expect(lists.apply("a", 4, pack([address(9)]))).toBeUndefined();
    expect(lists.apply("a", 5, pack([]))).toBeUndefined();
    expect(lists.holds("a", 5)).toBe(true);
    expect(lists.webhooksFor(address(1))).toEqual(["a"]);

    expect(lists.apply("a", 7, undefined)).toEqual({ added: 0, removed: 2 });
    expect(lists.webhooksFor(address(1))).toEqual([]);
    expect(lists.webhooksFor(address(2))).toEqual(["b"]);
    expect(lists.webhooks).toBe(1);
    // The deletion shown again by a new watch.
    expect(lists.apply("a", 7, undefined)).toEqual({ added: 0, removed: 0 });
    expect(lists.size).toBe(2);
  });

  it("behavior: entries that are not EVM addresses are matched exactly as written, and follow the list too", () => {
    const lists = new WatchedLists();
    const odd = (entries: ReadonlyArray<string>) =>
      packAddressList(new TextEncoder().encode(JSON.stringify({ addresses: entries })))!;
    lists.apply("wh", 1, odd([address(1), "vitalik.eth"]));
    expect(lists.webhooksFor("vitalik.eth")).toEqual(["wh"]);
    lists.apply("wh", 2, odd([address(1)]));
    expect(lists.webhooksFor("vitalik.eth")).toEqual([]);
    expect(lists.webhooksFor(address(1))).toEqual(["wh"]);
  });
});
