import { describe, expect, it } from "vitest";
import { tokenUniverse } from "../../../src/discovery/tokenUniverse.js";
import { tokenMetadataKey, tokenPoolKey } from "../../../src/indexer/indexKeys.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { memoryDb } from "../../support/indexerBlocks.js";

const token = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const CONFIGURED = [token(0xc1), token(0xc2)];
const LISTED = token(0x11);
const POOL = token(0xfff0);
const chain = testChainConfig({ tokens: CONFIGURED });
const sources = { listed: () => [LISTED] };

/** An index that has seen tokens 1..6 (metadata), with pools for tokens 4 and 6 (6 in two). */
const seededIndex = async () => {
  const db = memoryDb();
  const metadata = { name: null, symbol: null, decimals: 18 };
  await db.batch([
    ...[1, 2, 3, 4, 5, 6].map((n) => ({
      type: "put" as const,
      key: tokenMetadataKey(1, token(n)),
      value: metadata,
    })),
    { type: "put", key: tokenPoolKey(1, token(4), POOL), value: POOL },
    { type: "put", key: tokenPoolKey(1, token(6), POOL), value: POOL },
    { type: "put", key: tokenPoolKey(1, token(6), token(0xfff1)), value: token(0xfff1) },
  ]);
  return db;
};

describe("token universe", () => {
  it("default: curated sources first, then every token the index has seen", async () => {
    const universe = await tokenUniverse(await seededIndex(), chain, sources, 50);
    expect(universe.tokens).toEqual([...CONFIGURED, LISTED, ...[1, 2, 3, 4, 5, 6].map(token)]);
    expect(universe.counts).toMatchObject({ configured: 2, listed: 1, seen: 6 });
    expect(universe.dropped).toBe(0);
  });

  it("behavior: seen tokens that overflow the cap give way to those with a known pool", async () => {
    const universe = await tokenUniverse(await seededIndex(), chain, sources, 5);
    expect(universe.tokens).toEqual([...CONFIGURED, LISTED, token(4), token(6)]);
    expect(universe.dropped).toBe(4);
    const roomForThree = await tokenUniverse(await seededIndex(), chain, sources, 6);
    expect(roomForThree.tokens).toEqual([...CONFIGURED, LISTED, token(4), token(6), token(1)]);
    expect(roomForThree.dropped).toBe(3);
  });

  it("behavior: a cap the curated sources fill leaves no seen token", async () => {
    const universe = await tokenUniverse(await seededIndex(), chain, sources, 2);
    expect(universe.tokens).toEqual(CONFIGURED);
    expect(universe.dropped).toBe(7);
  });
});
