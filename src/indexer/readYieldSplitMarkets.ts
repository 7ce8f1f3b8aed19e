import { type ChainConfig, protocolsOf } from "../chains/ChainsConfig.js";
import type { RawCall, RawResult } from "../chains/multicall3.js";
import { addressWord, rawCall, uintWord } from "../chains/rawCalls.js";
import type { YieldSplitToken } from "./IndexRecords.js";
import { yieldSplitMarketKey, yieldSplitTokenKey } from "./indexKeys.js";

/** One round trip of calls to the chain (a Multicall3 `aggregate3`, at whatever block the caller pins). */
export type ReadCalls = (calls: ReadonlyArray<RawCall>) => Promise<ReadonlyArray<RawResult>>;

/**
 * The PT, YT and market (LP token) records of Pendle V2 markets named by address, and each PT's first
 * market, as the index records them from the registry factories' `CreateYieldContract` and
 * `CreateNewMarket`, read from the chain instead: a market counts only if a registry market factory
 * says `isValidMarket(market)` (so a look-alike never passes for one), and the market's `readTokens()`
 * gives its SY, PT and YT; then the PT's `expiry()` and the SY's `assetInfo()` asset. Two round trips.
 * The first market of a PT in `markets` is its `ym!` market. Used by discovery (a configured list) and
 * by the indexer (a live market whose PT the index has not met: the registry backfill may not have
 * reached the PT's creation yet).
 */
export const readYieldSplitMarkets = async (
  read: ReadCalls,
  chain: ChainConfig,
  markets: ReadonlyArray<string>,
): Promise<ReadonlyArray<readonly [string, YieldSplitToken | string]>> => {
  const deployments = protocolsOf(chain).filter((p) => p.kind === "pendle" && p.market_factory !== undefined);
  const unique = [...new Set(markets.map((m) => m.toLowerCase()))];
  if (deployments.length === 0 || unique.length === 0) return [];

  const perMarket = 1 + deployments.length;
  const first = await read(
    unique.flatMap((market) => [
      rawCall(market, "readTokens()"),
      ...deployments.map((d) => rawCall(d.market_factory!, "isValidMarket(address)", market)),
    ]),
  );
  const valid = unique.flatMap((market, i) => {
    const at = i * perMarket;
    const sy = addressWord(first[at], 0);
    const pt = addressWord(first[at], 1);
    const yt = addressWord(first[at], 2);
    const deployment = deployments.find((_, d) => uintWord(first[at + 1 + d], 0) === 1n);
    if (sy === undefined || pt === undefined || yt === undefined || deployment === undefined) return [];
    return [{ market, sy, pt, yt, factory: deployment.address }];
  });
  if (valid.length === 0) return [];

  const pts = [...new Set(valid.map((v) => v.pt))];
  const sys = [...new Set(valid.map((v) => v.sy))];
  const second = await read([
    ...pts.map((pt) => rawCall(pt, "expiry()")),
    // `assetInfo()` answers (assetType, assetAddress, assetDecimals).
    ...sys.map((sy) => rawCall(sy, "assetInfo()")),
  ]);
  const expiryOf = new Map(pts.map((pt, i) => [pt, uintWord(second[i], 0)]));
  const assetOf = new Map(sys.map((sy, i) => [sy, addressWord(second[pts.length + i], 1)]));

  // A PT listed with several markets keeps the first: the first write of a key wins, as in the index.
  const writes = new Map<string, YieldSplitToken | string>();
  const add = (key: string, value: YieldSplitToken | string) => {
    if (!writes.has(key)) writes.set(key, value);
  };
  for (const { market, sy, pt, yt, factory } of valid) {
    const expiry = expiryOf.get(pt);
    const asset = assetOf.get(sy);
    if (expiry === undefined || asset === undefined) continue;
    const base = { factory, sy, pt, yt, expiry: Number(expiry), asset };
    add(yieldSplitTokenKey(chain.chain_id, pt), { role: "pt", ...base });
    add(yieldSplitTokenKey(chain.chain_id, yt), { role: "yt", ...base });
    add(yieldSplitTokenKey(chain.chain_id, market), { role: "lp", ...base });
    add(yieldSplitMarketKey(chain.chain_id, pt), market);
  }
  return [...writes];
};
