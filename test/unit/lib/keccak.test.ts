import { keccak256, toHex } from "viem";
import { describe, expect, it } from "vitest";
import { keccak256Hex } from "../../../src/lib/keccak.js";

/** `length` bytes of a fixed pattern, as 0x-prefixed hex. */
const bytesHex = (length: number, seed: number) =>
  toHex(Uint8Array.from({ length }, (_, i) => (i * 31 + seed) & 0xff));

describe("keccak256Hex", () => {
  it("default: the empty input hashes to Ethereum's empty-code hash", () => {
    expect(keccak256Hex("0x")).toBe("0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
  });

  it("behavior: equals viem's keccak256 on each side of the 136-byte block edge, and on a V4 pool key's 160 bytes", () => {
    for (const length of [1, 32, 64, 135, 136, 137, 160, 271, 272, 273, 1000])
      for (const seed of [0, 7]) {
        const input = bytesHex(length, seed);
        expect(keccak256Hex(input), `${length} bytes`).toBe(keccak256(input));
      }
  });

  it("bad input: an odd digit, a character that is not hex or a missing 0x throws instead of hashing other bytes", () => {
    expect(() => keccak256Hex("0xabc")).toThrow(/whole bytes/);
    expect(() => keccak256Hex("0xabzz")).toThrow(/whole bytes/);
    expect(() => keccak256Hex("abcd")).toThrow(/whole bytes/);
    expect(keccak256Hex("0xABCD")).toBe(keccak256("0xabcd"));
  });

  it("regression: one hash leaves nothing in the shared hasher for the next", () => {
    const first = keccak256Hex(bytesHex(200, 1));
    keccak256Hex(bytesHex(50, 2));
    expect(keccak256Hex(bytesHex(200, 1))).toBe(first);
  });
});
