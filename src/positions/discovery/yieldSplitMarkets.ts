import { type ChainConfig, protocolsOf } from "../../chains/ChainsConfig.js";
import { addressWord, rawCall, uintWord } from "../../chains/rawCalls.js";
import { addNewKeys } from "../../indexer/addNewKeys.js";
import type { YieldSplitToken } from "../../indexer/IndexRecords.js";
import { yieldSplitMarketKey, yieldSplitTokenKey } from "../../indexer/indexKeys.js";
import { type DiscoveryContext, type Findings, NO_FINDINGS, readAt } from "./DiscoveryContext.js";

/**
 * The PT, YT and market (LP token) records of Pendle V2 markets named by address (a configured list),
 * as the indexer records them from the registry factories' `CreateYieldContract` and `CreateNewMarket`:
 * a market counts only if a registry market factory says `isValidMarket(market)` (so a look-alike
 * never passes for one, as only registry factories' events count for the indexer), and the market's
 * `readTokens()` gives its SY, PT and YT; then the PT's `expiry()` and the SY's `assetInfo()` asset.
 * Two round trips per chain. The first listed market of a PT is its `ym!` market unless the index
 * has one. A PT and YT with no listed market are not found (their factory's events would list them).
 */
export const findYieldSplitMarkets = async (
  context: DiscoveryContext,
  marketAddresses: ReadonlyArray<string>,
): Promise<Findings> => {
  const deployments = protocolsOf(context.chain).filter(
    (p) => p.kind === "pendle" && p.market_factory !== undefined,
  );
  const markets = [...new Set(marketAddresses.map((m) => m.toLowerCase()))];
  if (deployments.length === 0 || markets.length === 0) return NO_FINDINGS;

  const perMarket = 1 + deployments.length;
  const first = await readAt(
    context,
    markets.flatMap((market) => [
      rawCall(market, "readTokens()"),
      ...deployments.map((d) => rawCall(d.market_factory!, "isValidMarket(address)", market)),
    ]),
  );
  const valid = markets.flatMap((market, i) => {
    const at = i * perMarket;
    const sy = addressWord(first[at], 0);
    const pt = addressWord(first[at], 1);
    const yt = addressWord(first[at], 2);
    const deployment = deployments.find((_, d) => uintWord(first[at + 1 + d], 0) === 1n);
    if (sy === undefined || pt === undefined || yt === undefined || deployment === undefined) return [];
    return [{ market, sy, pt, yt, factory: deployment.address }];
  });
  if (valid.length === 0) return NO_FINDINGS;

  const pts = [...new Set(valid.map((v) => v.pt))];
  const sys = [...new Set(valid.map((v) => v.sy))];
  const second = await readAt(context, [
    ...pts.map((pt) => rawCall(pt, "expiry()")),
    // `assetInfo()` answers (assetType, assetAddress, assetDecimals).
    ...sys.map((sy) => rawCall(sy, "assetInfo()")),
  ]);
  const expiryOf = new Map(pts.map((pt, i) => [pt, uintWord(second[i], 0)]));
  const assetOf = new Map(sys.map((sy, i) => [sy, addressWord(second[pts.length + i], 1)]));

  const chainId = context.chain.chain_id;
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
    add(yieldSplitTokenKey(chainId, pt), { role: "pt", ...base });
    add(yieldSplitTokenKey(chainId, yt), { role: "yt", ...base });
    add(yieldSplitTokenKey(chainId, market), { role: "lp", ...base });
    add(yieldSplitMarketKey(chainId, pt), market);
  }
  return { ops: (await addNewKeys(context.db, [...writes])).ops };
};

/**
 * The chain finder for Pendle markets given a way to list them per chain (a registry field, once there
 * is one). Without a list there is nothing to read: the markets come from the factories' events then.
 */
export const yieldSplitMarketsFinder =
  (marketsOf: (chain: ChainConfig) => ReadonlyArray<string>) =>
  (context: DiscoveryContext): Promise<Findings> =>
    findYieldSplitMarkets(context, marketsOf(context.chain));
