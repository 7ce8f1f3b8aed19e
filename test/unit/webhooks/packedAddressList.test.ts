import { describe, expect, it } from "vitest";
import { addressAt } from "../../../src/webhooks/addressKeys.js";
import { encodeList } from "../../../src/webhooks/store/addressLists.js";
import { type PackedAddressList, packAddressList } from "../../../src/webhooks/store/packedAddressList.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const bytes = (text: string) => new TextEncoder().encode(text);

/** The list's addresses as text again, in its order, then the entries that are not addresses. */
const textOf = (list: PackedAddressList | undefined) =>
  list === undefined
    ? undefined
    : [...Array.from({ length: list.count }, (_, i) => addressAt(list.keys, i * 20)), ...list.others];

describe("reading a stored address list without a string per address", () => {
  it("behavior: what the store writes reads back as the same addresses, in order, at any length", () => {
    for (const length of [0, 1, 2, 1_000]) {
      const addresses = Array.from({ length }, (_, i) => address(7 * i + 3));
      const list = packAddressList(bytes(encodeList(addresses)));
      expect(list?.count).toBe(length);
      expect(textOf(list)).toEqual(addresses);
    }
    const mixed = [`0x${"ab".repeat(20)}`, `0x${"ff".repeat(20)}`];
    expect(textOf(packAddressList(bytes(encodeList(mixed))))).toEqual(mixed);
  });

  it("behavior: a list out of order, with repeats or upper-case digits, reads sorted, once each, lower-case", () => {
    const upper = `0x${"AB".repeat(20)}`;
    const list = packAddressList(bytes(encodeList([address(9), upper, address(2), address(9)])));
    expect(textOf(list)).toEqual([address(2), address(9), upper.toLowerCase()]);
  });

  it("behavior: the same JSON written otherwise (spaces, entries that are not addresses) reads the same way", () => {
    const text = `{ "addresses": [ "${address(5)}", "not-an-address", "${address(1)}", "0x12" ] }`;
    const list = packAddressList(bytes(text));
    expect(list?.count).toBe(2);
    expect(textOf(list)).toEqual([address(1), address(5), "not-an-address", "0x12"]);
  });

  it("failure: anything that is not an address list reads as no list", () => {
    for (const text of ["", "{", "[]", '{"addresses":"0x1"}', '{"addresses":[1,2]}', '{"ids":[]}', "null"])
      expect(packAddressList(bytes(text)), text).toBeUndefined();
    // Cut short in the middle of an address: not the written form, and not JSON either.
    const cut = encodeList([address(1), address(2)]).slice(0, -10);
    expect(packAddressList(bytes(cut))).toBeUndefined();
  });
});
