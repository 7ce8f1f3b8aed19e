import { describe, expect, it } from "vitest";
import { AddressTable } from "../../../src/webhooks/notifier/AddressTable.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

/** A seeded generator, so a failing sequence can be replayed. */
const random = (seed: number) => () => {
  seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x9e3779b9) | 0;
  return ((seed ^ (seed >>> 13)) >>> 0) / 2 ** 32;
};

const sorted = (ids: Iterable<string>) => [...ids].sort();

describe("the notifier's table of watched addresses", () => {
  it("behavior: answers the webhooks watching an address, whatever the case of its hex digits, and nothing for others", () => {
    const table = new AddressTable(16);
    table.add("0x00000000000000000000000000000000000000aa", "wh1");
    table.add("0x00000000000000000000000000000000000000AA", "wh2");
    table.add("0x00000000000000000000000000000000000000aa", "wh1");
    expect(sorted(table.webhooksFor("0x00000000000000000000000000000000000000Aa"))).toEqual(["wh1", "wh2"]);
    expect(table.webhooksFor("0x00000000000000000000000000000000000000ab")).toEqual([]);
    expect(table.size).toBe(1);
    table.remove("0x00000000000000000000000000000000000000aa", "wh1");
    table.remove("0x00000000000000000000000000000000000000aa", "wh-never-added");
    expect(table.webhooksFor("0x00000000000000000000000000000000000000aa")).toEqual(["wh2"]);
    table.remove("0x00000000000000000000000000000000000000aa", "wh2");
    expect(table.webhooksFor("0x00000000000000000000000000000000000000aa")).toEqual([]);
    expect(table.size).toBe(0);
  });

  it("behavior: keys that are not EVM addresses are kept exactly as given", () => {
    const table = new AddressTable();
    for (const odd of ["0x12", "not-an-address", `0x${"g".repeat(40)}`, `1x${"0".repeat(40)}`, ""]) {
      table.add(odd, "wh1");
      expect(table.webhooksFor(odd)).toEqual(["wh1"]);
    }
    expect(table.webhooksFor("0x12 ")).toEqual([]);
    table.remove("0x12", "wh1");
    expect(table.webhooksFor("0x12")).toEqual([]);
    expect(table.size).toBe(4);
  });

  it("behavior: stays exact through 200,000 random adds and removes, growing from 16 slots, against a plain map", () => {
    const next = random(7);
    const table = new AddressTable(16);
    const reference = new Map<string, Set<string>>();
    // Few addresses and webhooks so that removals hit present pairs, collide and empty addresses often;
    // sequential addresses, as a test or vanity range would give, must not cluster in the table.
    for (let i = 0; i < 200_000; i++) {
      const a = address(Math.floor(next() * 5_000));
      const id = `wh${Math.floor(next() * 40)}`;
      if (next() < 0.55) {
        table.add(a, id);
        reference.set(a, (reference.get(a) ?? new Set()).add(id));
      } else {
        table.remove(a, id);
        reference.get(a)?.delete(id);
        if (reference.get(a)?.size === 0) reference.delete(a);
      }
    }
    expect(table.size).toBe(reference.size);
    for (let n = 0; n < 5_000; n++)
      expect(sorted(table.webhooksFor(address(n)))).toEqual(sorted(reference.get(address(n)) ?? []));
  });

  it("behavior: a webhook id removed from every address can come back, and others keep theirs", () => {
    const table = new AddressTable(16);
    for (let n = 0; n < 100; n++) table.add(address(n), n % 2 === 0 ? "even" : "odd");
    for (let n = 0; n < 100; n += 2) table.remove(address(n), "even");
    table.add(address(1), "even");
    expect(sorted(table.webhooksFor(address(1)))).toEqual(["even", "odd"]);
    expect(table.webhooksFor(address(3))).toEqual(["odd"]);
    expect(table.webhooksFor(address(0))).toEqual([]);
    expect(table.size).toBe(50);
  });
});
