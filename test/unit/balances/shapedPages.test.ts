import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import type { HoldingsSnapshot } from "../../../src/balances/Balances.js";
import type { ChainHoldings } from "../../../src/balances/ChainHoldings.js";
import { makeShapedPages } from "../../../src/balances/shapedPages.js";
import type { ChainConfig } from "../../../src/chains/ChainsConfig.js";

const chain = { chain_id: 1, name: "ethereum" } as unknown as ChainConfig;
const read = (block: number, amount: bigint): ChainHoldings => ({
  chainId: 1,
  block,
  holdings: [{ address: "native", amount, symbol: "ETH", name: null, decimals: 18, price: undefined }],
});
const snapshotOf = (holdings: ChainHoldings): HoldingsSnapshot => ({
  byChain: [{ chain, holdings, progress: { state: "not_needed" } }],
  failures: [],
});

/** A page shaper that counts its runs and serialises the first holding's amount. */
const shaper = () => {
  let runs = 0;
  const shape = (snapshot: HoldingsSnapshot) =>
    Effect.sync(() => {
      runs++;
      return {
        json: JSON.stringify([String(snapshot.byChain[0]!.holdings.holdings[0]!.amount)]),
        continueAfter: undefined,
        pastPriceWarnings: [],
      };
    });
  return { shape, runs: () => runs };
};

describe("shaped pages", () => {
  it("serves the same read's page again without shaping it again", async () => {
    const pages = makeShapedPages(10, 1_000_000);
    const { shape, runs } = shaper();
    const snapshot = snapshotOf(read(100, 5n));
    const first = await Effect.runPromise(pages.through(snapshot, "q", shape(snapshot)));
    const second = await Effect.runPromise(pages.through({ ...snapshot }, "q", shape(snapshot)));
    expect(second.json).toBe(first.json);
    expect(runs()).toBe(1);
  });

  it("shapes a new read (a new indexed block) afresh, so a page is never older than the read cache", async () => {
    const pages = makeShapedPages(10, 1_000_000);
    const { shape, runs } = shaper();
    const before = snapshotOf(read(100, 5n));
    await Effect.runPromise(pages.through(before, "q", shape(before)));
    const after = snapshotOf(read(101, 7n));
    const page = await Effect.runPromise(pages.through(after, "q", shape(after)));
    expect(page.json).toBe('["7"]');
    expect(runs()).toBe(2);
  });

  it("keeps pages of different queries over the same read apart", async () => {
    const pages = makeShapedPages(10, 1_000_000);
    const { shape, runs } = shaper();
    const snapshot = snapshotOf(read(100, 5n));
    await Effect.runPromise(pages.through(snapshot, "limit=1", shape(snapshot)));
    await Effect.runPromise(pages.through(snapshot, "limit=2", shape(snapshot)));
    expect(runs()).toBe(2);
  });

  it("keeps nothing when the read cache is off (0 entries)", async () => {
    const pages = makeShapedPages(0, 1_000_000);
    const { shape, runs } = shaper();
    const snapshot = snapshotOf(read(100, 5n));
    await Effect.runPromise(pages.through(snapshot, "q", shape(snapshot)));
    await Effect.runPromise(pages.through(snapshot, "q", shape(snapshot)));
    expect(runs()).toBe(2);
  });
});
