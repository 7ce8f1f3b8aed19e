import { Either } from "effect";
import { describe, expect, it } from "vitest";
import { parseBlockNumber } from "../../../src/chains/parseBlockNumber.js";

const refused = (raw: string) => {
  const result = parseBlockNumber(raw);
  if (Either.isRight(result)) throw new Error(`"${raw}" was accepted as ${result.right}`);
  return result.left;
};

describe("parseBlockNumber", () => {
  it("default: omitted is the head; decimal digits are a height", () => {
    expect(parseBlockNumber(undefined)).toEqual(Either.right(undefined));
    expect(parseBlockNumber("19000000")).toEqual(Either.right(19_000_000));
    expect(parseBlockNumber("0")).toEqual(Either.right(0));
  });

  it("args: surrounding blanks and leading zeros do not change the height", () => {
    expect(parseBlockNumber(" 42 ")).toEqual(Either.right(42));
    expect(parseBlockNumber("00042")).toEqual(Either.right(42));
    expect(parseBlockNumber("000")).toEqual(Either.right(0));
  });

  it("args: the largest height is Number.MAX_SAFE_INTEGER", () => {
    expect(parseBlockNumber(String(Number.MAX_SAFE_INTEGER))).toEqual(Either.right(Number.MAX_SAFE_INTEGER));
    expect(refused(String(Number.MAX_SAFE_INTEGER + 1)).message).toContain(String(Number.MAX_SAFE_INTEGER));
  });

  it("error: hex is refused, with the decimal height to give instead", () => {
    const error = refused("0x12a05f2");
    expect(error.code).toBe("INVALID_BLOCK_NUMBER");
    expect(error.message).toContain("decimal digits, not hex: give 19531250 for 0x12a05f2");
  });

  it("error: negative, fractional, exponent, empty and absurd values are each a 400 that says what is accepted", () => {
    expect(refused("-1").message).toBe('block_number cannot be negative (got "-1").');
    for (const raw of ["1.5", "1e6", "", " ", "+5", "latest", "1,2", "١٢"])
      expect(refused(raw).message, raw).toMatch(/^block_number must be a block height in decimal digits/);
    const absurd = refused("9".repeat(500));
    expect(absurd.message).toContain("higher than any chain will reach");
    // The value is cut short, never echoed whole.
    expect(absurd.message.length).toBeLessThan(200);
    expect(refused(`0x${"f".repeat(300)}`).message.length).toBeLessThan(200);
  });
});
