import type { ChainRows } from "./AdminClient.js";

type ChainRow = ChainRows[number];

/**
 * The selected chain's wallet discovery as the answering API worker reports it
 * (docs/real-chains.md), one line; undefined where the index holds the chain's whole history.
 */
export const discoveryLine = (
  chain: ChainRow,
): { readonly text: string; readonly alert: boolean } | undefined => {
  const counts = chain.discovery;
  if (counts === undefined) return undefined;
  const parts = [
    `${counts.complete} complete`,
    `${counts.sweeping} sweeping`,
    `${counts.scanning} scanning history`,
    `${counts.failed} failed`,
  ];
  return {
    text: `wallets discovered (index from block ${chain.indexed_from ?? "?"}): ${parts.join(" · ")}`,
    alert: counts.failed > 0,
  };
};
