import { type ChainConfig, type ProtocolConfig, protocolsOf } from "../../chains/ChainsConfig.js";
import type { IndexReader } from "../../indexer/IndexReader.js";

/** A strategy the wallet deposited into through a registry StrategyManager, with the strategy's token. */
export interface HeldStrategy {
  readonly manager: ProtocolConfig;
  readonly strategy: string;
  readonly token: string;
}

/** The wallet's restaking strategies on a chain: `Deposit` events the index kept, of managers still in the registry. */
export const discoverRestaking = async (
  index: IndexReader,
  chain: ChainConfig,
  wallet: string,
): Promise<ReadonlyArray<HeldStrategy>> => {
  const managers = new Map(
    protocolsOf(chain)
      .filter((p) => p.kind === "restake")
      .map((p) => [p.address, p]),
  );
  if (managers.size === 0) return [];
  return (await index.restakeDeposits(wallet))
    .filter((d) => d.chain_id === chain.chain_id && managers.has(d.manager))
    .map((d) => ({ manager: managers.get(d.manager)!, strategy: d.strategy, token: d.token }));
};
