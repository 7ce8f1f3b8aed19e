import type { ChainConfig } from "../../chains/ChainsConfig.js";
import { addNewKeys } from "../../indexer/addNewKeys.js";
import { readYieldSplitMarkets } from "../../indexer/readYieldSplitMarkets.js";
import { type DiscoveryContext, type Findings, NO_FINDINGS, readAt } from "./DiscoveryContext.js";

/**
 * The PT, YT and market records of Pendle V2 markets named by address (a configured list), read at
 * the discovery block (readYieldSplitMarkets). A PT and YT with no listed market are not found
 * (their factory's events would list them).
 */
export const findYieldSplitMarkets = async (
  context: DiscoveryContext,
  marketAddresses: ReadonlyArray<string>,
): Promise<Findings> => {
  const writes = await readYieldSplitMarkets(
    (calls) => readAt(context, calls),
    context.chain,
    marketAddresses,
  );
  if (writes.length === 0) return NO_FINDINGS;
  return { ops: (await addNewKeys(context.db, writes)).ops };
};

/**
 * The chain finder for Pendle markets given a way to list them per chain (a registry field, once there
 * is one). Without a list there is nothing to read: the markets come from the factories' events then.
 */
export const yieldSplitMarketsFinder =
  (marketsOf: (chain: ChainConfig) => ReadonlyArray<string>) =>
  (context: DiscoveryContext): Promise<Findings> =>
    findYieldSplitMarkets(context, marketsOf(context.chain));
