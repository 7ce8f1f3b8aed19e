import { Either } from "effect";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeChainRegistry } from "../../../src/chains/ChainRegistry.js";
import { ChainConfig, ChainsConfigFile, NativeAsset } from "../../../src/chains/ChainsConfig.js";
import { parseChainIds } from "../../../src/chains/parseChainIds.js";

const chain = (chain_id: number, name: string, tags: Array<string>, supports?: Record<string, boolean>) =>
  ChainConfig.make({
    chain_id,
    name,
    rpc_url: "http://127.0.0.1:1",
    tags,
    native: NativeAsset.make({ symbol: "ETH", name: "Ether", decimals: 18 }),
    stablecoins: [],
    tokens: [],
    quote_tokens: [],
    protocols: [],
    logos: {},
    urls: {},
    traces: false,
    confirmations: 0,
    finality_depth: 64,
    ...(supports === undefined ? {} : { supports }),
  });

const registry = makeChainRegistry(
  ChainsConfigFile.make({
    chains: [
      chain(8453, "base", ["default", "mainnet"]),
      chain(1, "ethereum", ["default", "mainnet"]),
      chain(10, "optimism", ["default", "mainnet"], { defi_positions: false }),
      chain(57073, "ink", []),
    ],
  }),
);

const ids = (raw: string | undefined, family: "balances" | "defi_positions" = "balances") =>
  Either.map(parseChainIds(registry, family, raw), (s) => ({
    chains: s.chains.map((c) => c.chain_id),
    unsupported: s.unsupported,
  }));

describe("parseChainIds", () => {
  it("default: omitted means the chains tagged default that serve the endpoint, ascending", () => {
    expect(ids(undefined)).toEqual(Either.right({ chains: [1, 10, 8453], unsupported: [] }));
    expect(ids(undefined, "defi_positions")).toEqual(Either.right({ chains: [1, 8453], unsupported: [] }));
  });

  it("args: numeric ids, tags and mixes, comma-separated, OR-ed and de-duplicated", () => {
    expect(ids("8453")).toEqual(Either.right({ chains: [8453], unsupported: [] }));
    expect(ids("57073,1")).toEqual(Either.right({ chains: [1, 57073], unsupported: [] }));
    expect(ids("mainnet,1, 8453 ")).toEqual(Either.right({ chains: [1, 10, 8453], unsupported: [] }));
    expect(ids("MAINNET")).toEqual(Either.right({ chains: [1, 10, 8453], unsupported: [] }));
    expect(ids("testnet")).toEqual(Either.right({ chains: [], unsupported: [] }));
  });

  it("behavior: unsupported numeric ids are reported, not rejected", () => {
    expect(ids("1,9999,77777777777,9999")).toEqual(
      Either.right({ chains: [1], unsupported: [9999, 77777777777] }),
    );
    expect(ids("10", "defi_positions")).toEqual(Either.right({ chains: [], unsupported: [10] }));
  });

  it("error: chain names are rejected with the id to use instead", () => {
    const result = parseChainIds(registry, "balances", "ethereum");
    expect(Either.isLeft(result) && result.left.message).toBe(
      'chain_ids does not accept chain names: use the numeric id 1 for "ethereum", or a tag.',
    );
  });

  it("error: garbage, empty items and absurd ids are rejected", () => {
    for (const raw of [
      "",
      "1,,2",
      "0x1",
      "-1",
      "1.5",
      "all",
      "0",
      "99999999999999999999",
      "1;2",
      "a".repeat(3000),
    ]) {
      expect(Either.isLeft(parseChainIds(registry, "balances", raw)), raw).toBe(true);
    }
  });

  it("behavior: any string either parses to configured chains plus unsupported ids, or is rejected with a message", () => {
    const item = fc.oneof(
      fc.constantFrom(
        "1",
        "10",
        "8453",
        "57073",
        "default",
        "mainnet",
        "testnet",
        "ethereum",
        "base",
        "all",
        "",
      ),
      fc.integer({ min: 0, max: 2 ** 40 }).map(String),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(
        fc.array(item, { minLength: 1, maxLength: 8 }),
        fc.constantFrom(",", ", "),
        (items, sep) => {
          const raw = items.join(sep);
          const result = parseChainIds(registry, "balances", raw);
          if (Either.isLeft(result)) {
            expect(result.left.message.length).toBeGreaterThan(0);
            return;
          }
          const selected = result.right.chains.map((c) => c.chain_id);
          expect([...selected].sort((a, b) => a - b)).toEqual(selected);
          expect(new Set(selected).size).toBe(selected.length);
          for (const id of selected) expect(registry.byId.has(id)).toBe(true);
          for (const id of result.right.unsupported) expect(registry.byId.has(id)).toBe(false);
          // Every numeric item is either served or warned about.
          for (const it of items.map((s) => s.trim()).filter((s) => /^\d+$/.test(s))) {
            const id = Number(it);
            expect(selected.includes(id) || result.right.unsupported.includes(id)).toBe(true);
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
