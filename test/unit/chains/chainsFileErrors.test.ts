import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect, Either } from "effect";
import { describe, expect, it } from "vitest";
import { loadChainsFile } from "../../../src/chains/Chains.js";
import { RPC_DEFAULTS, rpcSettingsOf } from "../../../src/chains/rpc/rpcSettingsOf.js";

const native = { symbol: "ETH", name: "Ether", decimals: 18 };

const load = async (chains: ReadonlyArray<Record<string, unknown>>) => {
  const path = join(await mkdtemp(join(tmpdir(), "svc-chainsfile-")), "chains.json");
  await writeFile(path, JSON.stringify({ chains }));
  return Effect.runPromise(Effect.either(loadChainsFile(path)));
};

describe("a chains file's RPC settings", () => {
  it("default: one rpc_url gets the documented defaults", async () => {
    const loaded = await load([
      { chain_id: 1, name: "ethereum", rpc_url: "http://node:8545", tags: [], native },
    ]);
    expect(Either.isRight(loaded)).toBe(true);
    const settings = rpcSettingsOf(Either.getOrThrow(loaded).chains[0]!);
    expect(settings.endpoints).toEqual([
      {
        url: "http://node:8545",
        maxConcurrency: RPC_DEFAULTS.maxConcurrency,
        maxBatch: 40,
        timeoutMs: 10_000,
      },
    ]);
    expect(settings.chain).toMatchObject({ maxHeadLag: 5, maxLogsRange: 10_000 });
  });

  it("behavior: rpc_url then rpc_urls, each endpoint taking the chain's limits unless it sets its own", async () => {
    const loaded = await load([
      {
        chain_id: 8453,
        name: "base",
        rpc_url: "http://own-node:8545",
        rpc_urls: [
          "http://own-node:8545",
          { url: "https://base.provider.example/v2/key", max_rps: 25, headers: { "x-api-key": "k" } },
        ],
        rpc: { max_batch: 20, max_logs_range: 2_000, timeout_ms: 5_000 },
        tags: [],
        native,
      },
    ]);
    const settings = rpcSettingsOf(Either.getOrThrow(loaded).chains[0]!);
    expect(settings.endpoints.map((e) => [e.url, e.maxRps, e.maxBatch, e.timeoutMs])).toEqual([
      ["http://own-node:8545", undefined, 20, 5_000],
      ["https://base.provider.example/v2/key", 25, 20, 5_000],
    ]);
    expect(settings.endpoints[1]!.headers).toEqual({ "x-api-key": "k" });
    expect(settings.chain.maxLogsRange).toBe(2_000);
  });

  it("error: each wrong setting on a line of its own, at its path, with what it accepts", async () => {
    const loaded = await load([
      {
        chain_id: 8453,
        name: "base",
        rpc_urls: ["ftp://node", { url: "http://b", max_batch: 5_000 }],
        rpc: { max_rps: -1, timeout_ms: "fast", max_logs_range: 0, max_head_lag: 1.5 },
        tags: [],
        native,
      },
    ]);
    expect(Either.isLeft(loaded) && loaded.left.message.split("\n").slice(1)).toEqual([
      "  chains[0] (base).rpc_urls[0]: must be an http:// or https:// URL",
      "  chains[0] (base).rpc_urls[1].max_batch: must be an integer from 1 to 1000 (got 5000)",
      "  chains[0] (base).rpc.max_rps: must be a number of requests per second above 0 (got -1)",
      '  chains[0] (base).rpc.timeout_ms: must be an integer from 100 to 300000 (got "fast")',
      "  chains[0] (base).rpc.max_logs_range: must be an integer from 1 to 10000000 (got 0)",
      "  chains[0] (base).rpc.max_head_lag: must be an integer from 0 to 1000000 (got 1.5)",
    ]);
  });

  it("error: a bad token_lists or bundled_token_lists value is named at its path", async () => {
    const loaded = await load([
      {
        chain_id: 8453,
        name: "base",
        rpc_url: "http://node:8545",
        token_lists: ["lists/base.json", "ftp://lists.example/base.json"],
        bundled_token_lists: ["uniswap", "coingecko"],
        tags: [],
        native,
      },
      {
        chain_id: 10,
        name: "optimism",
        rpc_url: "http://node:8546",
        token_lists: "op.json",
        tags: [],
        native,
      },
    ]);
    expect(Either.isLeft(loaded) && loaded.left.message.split("\n").slice(1)).toEqual([
      "  chains[0] (base).token_lists[1]: must be a file path (relative to the chains file's directory, or absolute) or an http:// or https:// URL",
      "  chains[0] (base).bundled_token_lists[1]: must be uniswap, superchain or metamask",
      "  chains[1] (optimism).token_lists: must be a list of token list files or http(s) URLs",
    ]);
  });

  it("error: a chain without any endpoint is named", async () => {
    const loaded = await load([{ chain_id: 10, name: "optimism", tags: [], native }]);
    expect(Either.isLeft(loaded) && loaded.left.message).toMatch(
      /chain optimism has no RPC endpoint: give "rpc_url" or "rpc_urls"/,
    );
  });
});
