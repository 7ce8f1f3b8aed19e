import { describe, expect, it } from "vitest";
import { exceedsJsonDepth } from "../../../src/lib/jsonDepth.js";

const bytes = (text: string) => new TextEncoder().encode(text);
const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

describe("exceedsJsonDepth", () => {
  it("default: bodies at or under the limit pass, one level more does not", () => {
    expect(exceedsJsonDepth(bytes('{"addresses":["0x1"]}'), 2)).toBe(false);
    expect(exceedsJsonDepth(bytes(nested(32)), 32)).toBe(false);
    expect(exceedsJsonDepth(bytes(nested(33)), 32)).toBe(true);
    expect(exceedsJsonDepth(bytes(`{"a":${nested(32)}}`), 32)).toBe(true);
  });

  it("behavior: brackets inside strings, escaped quotes included, do not count", () => {
    expect(exceedsJsonDepth(bytes(JSON.stringify({ name: "[".repeat(100) })), 1)).toBe(false);
    expect(exceedsJsonDepth(bytes(JSON.stringify({ name: `\\"${"{".repeat(100)}` })), 1)).toBe(false);
    expect(exceedsJsonDepth(bytes(JSON.stringify({ name: "é[ü{" })), 1)).toBe(false);
  });

  it("behavior: siblings do not add up; only nesting does", () => {
    const wide = `[${Array.from({ length: 1000 }, () => "[]").join(",")}]`;
    expect(exceedsJsonDepth(bytes(wide), 2)).toBe(false);
  });

  it("error: 100,000 levels are refused without a stack overflow", () => {
    expect(exceedsJsonDepth(bytes(nested(100_000)), 32)).toBe(true);
  });
});
