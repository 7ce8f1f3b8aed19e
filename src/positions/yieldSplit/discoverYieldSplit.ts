import { type ChainConfig, type ProtocolConfig, protocolsOf } from "../../chains/ChainsConfig.js";
import type { IndexReader } from "../../indexer/IndexReader.js";
import type { YieldSplitToken } from "../../indexer/IndexRecords.js";

/** A PT, YT or market LP token the wallet touched, with its deployment and the market that prices its PT. */
export interface HeldYieldToken {
  readonly token: string;
  readonly record: YieldSplitToken;
  readonly deployment: ProtocolConfig;
  /** The PT's market (for an LP token, the token itself); undefined when the PT has none. */
  readonly market: string | undefined;
}

/**
 * The yield-splitting tokens among the tokens a wallet touched on a chain, from the index only: the
 * index knows a token as a PT, YT or market only from a registry factory's own events, so a token
 * that merely looks like one is never read as one.
 */
export const discoverYieldSplit = async (
  index: IndexReader,
  chain: ChainConfig,
  touched: ReadonlyArray<string>,
): Promise<ReadonlyArray<HeldYieldToken>> => {
  const deployments = new Map(
    protocolsOf(chain)
      .filter((p) => p.kind === "pendle")
      .map((p) => [p.address, p]),
  );
  if (deployments.size === 0 || touched.length === 0) return [];
  const records = await index.yieldSplitTokens(chain.chain_id, touched);
  const held: Array<Omit<HeldYieldToken, "market">> = [];
  touched.forEach((token, i) => {
    const record = records[i];
    const deployment = record === undefined ? undefined : deployments.get(record.factory);
    if (record !== undefined && deployment !== undefined) held.push({ token, record, deployment });
  });
  const pts = [...new Set(held.filter((h) => h.record.role !== "lp").map((h) => h.record.pt))];
  const markets = await index.yieldSplitMarkets(chain.chain_id, pts);
  const marketOf = new Map(pts.map((pt, i) => [pt, markets[i]]));
  return held.map((h) => ({ ...h, market: h.record.role === "lp" ? h.token : marketOf.get(h.record.pt) }));
};
