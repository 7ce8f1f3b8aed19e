import { type ProtocolConfig, protocolsOf } from "../../chains/ChainsConfig.js";
import { rawCall } from "../../chains/rawCalls.js";
import { addressArray } from "./abiWords.js";
import { type DiscoveryContext, readAt } from "./DiscoveryContext.js";

/** A registry comptroller (kind `ctoken`) and the cTokens it lists. */
export interface ComptrollerMarkets {
  readonly deployment: ProtocolConfig;
  readonly cTokens: ReadonlyArray<string>;
}

/**
 * Every cToken market of every registry comptroller, from its `getAllMarkets()` (what its
 * `MarketListed` events would have told the indexer), in one round trip. A comptroller that does
 * not answer lists nothing.
 */
export const readComptrollerMarkets = async (
  context: DiscoveryContext,
): Promise<ReadonlyArray<ComptrollerMarkets>> => {
  const comptrollers = protocolsOf(context.chain).filter((p) => p.kind === "ctoken");
  if (comptrollers.length === 0) return [];
  const lists = await readAt(
    context,
    comptrollers.map((p) => rawCall(p.address, "getAllMarkets()")),
  );
  return comptrollers.map((deployment, i) => ({
    deployment,
    cTokens: [...new Set(addressArray(lists[i], 0) ?? [])],
  }));
};
