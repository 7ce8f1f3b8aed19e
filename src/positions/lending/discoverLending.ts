import { type ChainConfig, type ProtocolConfig, protocolsOf } from "../../chains/ChainsConfig.js";
import type { IndexReader } from "../../indexer/IndexReader.js";
import type { LendingToken } from "../../indexer/IndexRecords.js";

/** An Aave supply or variable debt token the wallet touched, with its deployment. */
export interface HeldAaveToken {
  readonly token: string;
  readonly record: LendingToken;
  readonly deployment: ProtocolConfig;
}

/** A cToken market the wallet supplied to (touched its cToken) or borrowed from, with its comptroller's deployment. */
export interface HeldCTokenMarket {
  readonly cToken: string;
  readonly underlying: string;
  readonly deployment: ProtocolConfig;
}

/** A Comet market the wallet is in, with the collateral assets it ever supplied there. */
export interface HeldCometMarket {
  readonly comet: string;
  readonly base: string;
  readonly collateral: ReadonlyArray<string>;
  readonly deployment: ProtocolConfig;
}

export interface LendingCandidates {
  readonly aave: ReadonlyArray<HeldAaveToken>;
  readonly cTokens: ReadonlyArray<HeldCTokenMarket>;
  readonly comets: ReadonlyArray<HeldCometMarket>;
}

/**
 * Where a wallet may hold lending positions on a chain, from the index only: supply and debt
 * tokens it touched (Aave aTokens and variable debt tokens, cTokens), cToken markets it borrowed
 * from, and Comet markets it used, each tied to its registry deployment.
 */
export const discoverLending = async (
  index: IndexReader,
  chain: ChainConfig,
  wallet: string,
  touched: ReadonlyArray<string>,
): Promise<LendingCandidates> => {
  const registry = new Map(protocolsOf(chain).map((p) => [p.address, p]));
  const markets = (await index.lendingMarkets(wallet)).filter((m) => m.chain_id === chain.chain_id);
  const marketAddresses = [...new Set(markets.map((m) => m.market))];
  const [tokenRecords, marketRecords] = await Promise.all([
    index.lendingTokens(chain.chain_id, touched),
    index.lendingTokens(chain.chain_id, marketAddresses),
  ]);

  const aave: Array<HeldAaveToken> = [];
  const cTokens = new Map<string, HeldCTokenMarket>();
  touched.forEach((token, i) => {
    const record = tokenRecords[i];
    const deployment = record === undefined ? undefined : registry.get(record.market);
    if (record === undefined || deployment === undefined) return;
    if (record.kind === "aave_v2" || record.kind === "aave_v3") aave.push({ token, record, deployment });
    else if (record.kind === "ctoken")
      cTokens.set(token, { cToken: token, underlying: record.asset, deployment });
  });
  const comets = new Map<string, HeldCometMarket>();
  marketAddresses.forEach((market, i) => {
    const record = marketRecords[i];
    const deployment = record === undefined ? undefined : registry.get(record.market);
    if (record === undefined || deployment === undefined) return;
    if (record.kind === "ctoken" && !cTokens.has(market))
      cTokens.set(market, { cToken: market, underlying: record.asset, deployment });
    if (record.kind === "comet") {
      const collateral = markets
        .filter((m) => m.market === market && m.asset !== undefined)
        .map((m) => m.asset!);
      comets.set(market, { comet: market, base: record.asset, collateral, deployment });
    }
  });
  return { aave, cTokens: [...cTokens.values()], comets: [...comets.values()] };
};
