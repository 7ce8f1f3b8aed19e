import { describe, expect, it } from "vitest";
import type { HistoricalPrices } from "../../../src/balances/historicalPrices.js";
import { pastPriceWarnings, readPastPrices } from "../../../src/balances/pastPrices.js";
import type { DiscoveryProgress } from "../../../src/discovery/DiscoveryProgress.js";
import { discoveryWarnings } from "../../../src/discovery/discoveryWarnings.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";

const ethereum = testChainConfig({ chain_id: 1, name: "ethereum" });
const base = testChainConfig({ chain_id: 8453, name: "base" });

/** Past blocks one a day back (block = 1000 - days), prices readable, except where `failAt` says. */
const history = (failAt: ReadonlySet<number> = new Set()): HistoricalPrices => ({
  blockHoursAgo: async (_chainId, _now, hours) => (hours > 24 * 40 ? undefined : 1_000 - hours / 24),
  at: async (_chain, block, tokens) => {
    if (failAt.has(block)) throw new Error("state at block #970 is pruned");
    return new Map(tokens.map((t) => [t, { priceUsd: block, poolSize: 1, pool: undefined } as never]));
  },
  lookups: () => ({ hits: 0, misses: 0 }),
});

describe("historical prices a chain cannot give", () => {
  it("behavior: an offset older than the nodes' state is left out with a warning naming chain, offset and why", async () => {
    const past = await readPastPrices(
      history(),
      [
        { chain: ethereum, tokens: ["0xaa"] },
        { chain: base, tokens: ["0xbb"] },
      ],
      [24, 720],
      { nowSeconds: 0, stateFrom: (chainId) => (chainId === 8453 ? 990 : 0) },
    );
    expect(past.byToken.get("1|0xaa")).toEqual([
      { offset_hours: 24, price_usd: 999 },
      { offset_hours: 720, price_usd: 970 },
    ]);
    expect(past.byToken.get("8453|0xbb")).toEqual([{ offset_hours: 24, price_usd: 999 }]);
    const warnings = pastPriceWarnings(past.gaps, "http://svc");
    expect(warnings).toEqual([
      {
        code: "HISTORICAL_PRICES_UNAVAILABLE",
        message: expect.stringMatching(
          /^No prices 720 hours back on base \(8453\): its RPC nodes keep state from block 990/,
        ),
        chain_ids: [8453],
        docs_url: "http://svc/v1/evm/supported-chains",
      },
    ]);
  });

  it("behavior: every offset of every chain is read at once, and prices come back in request order", async () => {
    // Reads that answer only when told to: one after another, the second would never be asked.
    const waiting: Array<() => void> = [];
    const gated: HistoricalPrices = {
      ...history(),
      at: (_chain, block, tokens) =>
        new Promise((resolve) =>
          waiting.push(() =>
            resolve(
              new Map(tokens.map((t) => [t, { priceUsd: block, poolSize: 1, pool: undefined } as never])),
            ),
          ),
        ),
    };
    const reading = readPastPrices(
      gated,
      [
        { chain: ethereum, tokens: ["0xaa"] },
        { chain: base, tokens: ["0xbb"] },
      ],
      [24, 48, 72],
      { nowSeconds: 0, stateFrom: () => undefined },
    );
    for (let i = 0; i < 20 && waiting.length < 6; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(waiting).toHaveLength(6);
    // Answered last to first: the answer keeps the order asked.
    for (const answer of [...waiting].reverse()) answer();
    const past = await reading;
    expect(past.byToken.get("1|0xaa")?.map((p) => p.offset_hours)).toEqual([24, 48, 72]);
    expect(past.byToken.get("8453|0xbb")?.map((p) => p.price_usd)).toEqual([999, 998, 997]);
  });

  it("error: a read that fails, or a time older than the index, is a gap too, never an error", async () => {
    const past = await readPastPrices(
      history(new Set([970])),
      [{ chain: ethereum, tokens: ["0xaa"] }],
      [720, 24 * 60],
      {
        nowSeconds: 0,
        stateFrom: () => undefined,
      },
    );
    expect(past.byToken.size).toBe(0);
    expect(past.gaps.map((g) => [g.hours, g.why])).toEqual([
      [720, "reading state at block 970 failed: state at block #970 is pruned"],
      [1_440, "the index holds no block that old"],
    ]);
  });
});

describe("answers from an index that starts after genesis", () => {
  it("behavior: a scan's place reads as not begun, how much is read, or read with its finds being recorded, and says when it waits for its turn", () => {
    const line = (progress: DiscoveryProgress) =>
      discoveryWarnings([{ chain: base, progress }], () => 0, "Balances", "http://svc")[0]?.message ?? "";
    const scan = (below: number) => ({ state: "scanning" as const, scan: { from: 0, to: 650, below } });
    expect(line(scan(651))).toContain("its transfer history is about to be read (blocks 0-650)");
    expect(line({ ...scan(651), scan_queued: true })).toContain(
      "its transfer history waits for its turn to be read, behind other wallets' scans (blocks 0-650)",
    );
    expect(line(scan(325))).toContain("is being read, newest first (blocks 325-650 of 0-650 read, 50%)");
    expect(line({ ...scan(325), scan_queued: true })).toContain(
      "behind other wallets' scans (blocks 325-650 of 0-650 read, 50%)",
    );
    expect(line(scan(0))).toContain(
      "its transfer history (blocks 0-650) is read and what it found is being recorded",
    );
  });

  it("behavior: INCOMPLETE_HISTORY names where a finished scan read down to, not where a pruned node's window has moved since", () => {
    const warnings = discoveryWarnings(
      [{ chain: base, progress: { state: "complete", scan: { from: 300, to: 999, below: 300 } } }],
      // The node's window moved up to 700 since the scan read down to 300.
      () => 700,
      "Balances",
      "http://svc",
    );
    expect(warnings).toEqual([
      expect.objectContaining({
        code: "INCOMPLETE_HISTORY",
        message: expect.stringContaining("base (8453): its history is read from block 300 only"),
      }),
    ]);
  });

  it("behavior: chains still being discovered warn DISCOVERY_IN_PROGRESS; chains whose nodes keep logs from a block on warn INCOMPLETE_HISTORY; whole-history chains warn nothing", () => {
    const warnings = discoveryWarnings(
      [
        { chain: ethereum, progress: { state: "not_needed" } },
        { chain: base, progress: { state: "scanning", scan: { from: 0, to: 999, below: 400 } } },
      ],
      (id) => (id === 8453 ? 120 : 0),
      "Balances",
      "http://svc",
    );
    expect(warnings).toEqual([
      {
        code: "DISCOVERY_IN_PROGRESS",
        message: expect.stringContaining(
          "base (8453): its transfer history is being read, newest first (blocks 400-999 of 0-999 read, 60%)",
        ),
        chain_ids: [8453],
        docs_url: "http://svc/v1/evm/supported-chains",
      },
      {
        code: "INCOMPLETE_HISTORY",
        message: expect.stringContaining("base (8453): its history is read from block 120 only"),
        chain_ids: [8453],
        docs_url: "http://svc/v1/evm/supported-chains",
      },
    ]);
    expect(
      discoveryWarnings(
        [{ chain: ethereum, progress: { state: "not_needed" } }],
        () => 5,
        "Balances",
        "http://svc",
      ),
    ).toEqual([]);
  });
});
