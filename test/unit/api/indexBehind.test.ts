import { describe, expect, it } from "vitest";
import { indexBehind } from "../../../src/api/handlers/health/indexBehind.js";

const tip = { processed: 12, processed_hash: "0xb12", processed_parent_hash: "0xb11" };

describe("whether /healthz finds the index behind ingestion", () => {
  it("behavior: an index on the published tip, on its parent or ahead of a status a second old is caught up", () => {
    expect(indexBehind(tip, { number: 12, hash: "0xb12" })).toBe(false);
    expect(indexBehind(tip, { number: 11, hash: "0xb11" })).toBe(false);
    expect(indexBehind(tip, { number: 13, hash: "0xb13" })).toBe(false);
  });

  it("behavior: an index one block below the tip on a block a reorg took away has not applied the reorg", () => {
    // Ingestion published the reorg and the new branch up to 12; the index still holds the old 11.
    expect(indexBehind(tip, { number: 11, hash: "0xa11" })).toBe(true);
  });

  it("behavior: an index with nothing, two blocks behind or on a replaced tip is behind", () => {
    expect(indexBehind(tip, undefined)).toBe(true);
    expect(indexBehind(tip, { number: 10, hash: "0xb10" })).toBe(true);
    expect(indexBehind(tip, { number: 12, hash: "0xa12" })).toBe(true);
  });

  it("args: a status without hashes (an older writer) is compared by number only", () => {
    expect(indexBehind({ processed: 12 }, { number: 11, hash: "0xa11" })).toBe(false);
    expect(indexBehind({ processed: 12, processed_hash: null }, { number: 12, hash: "0xa12" })).toBe(false);
    expect(indexBehind(undefined, { number: 3, hash: "0x3" })).toBe(false);
  });
});
