import type { Warning } from "../contracts/Common.js";
import type { ChainConfig } from "./ChainsConfig.js";

/**
 * The warning for answers read from an index that lacks part of a chain's history: it starts at
 * `indexed_from` (the chain's start block, the head at its first start, or where the nodes' logs
 * begin), so what a wallet acquired earlier and never touched since is not found, except the
 * chain's configured `tokens`, whose balances are always read. `indexedFrom` gives each chain's
 * first indexed block, or undefined when not known.
 */
export const incompleteHistoryWarning = (
  chains: ReadonlyArray<ChainConfig>,
  indexedFrom: (chainId: number) => number | undefined,
  what: string,
  publicUrl: string,
): Warning | undefined => {
  const partial = chains
    .map((chain) => ({ chain, from: indexedFrom(chain.chain_id) }))
    .filter(
      (entry): entry is { chain: ChainConfig; from: number } => entry.from !== undefined && entry.from > 0,
    );
  if (partial.length === 0) return undefined;
  return {
    code: "INCOMPLETE_HISTORY",
    message: `${what} may be incomplete: the index of ${partial.map(({ chain, from }) => `${chain.name} (${chain.chain_id}) starts at block ${from}`).join(", ")}; what the wallet acquired before and has not touched since is missing, except the chain's configured tokens.`,
    chain_ids: partial.map(({ chain }) => chain.chain_id),
    docs_url: `${publicUrl}/v1/evm/supported-chains`,
  };
};
