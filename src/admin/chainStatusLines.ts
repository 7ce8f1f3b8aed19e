import type { Schema } from "effect";
import type { ChainStatus } from "../contracts/Admin.js";

/**
 * A chain's discovery and registry backfill in a line each, as the TUI's Chains screen and the
 * admin CLI's `chains` show them (admin.chains.status).
 */
type ChainRow = Schema.Schema.Type<typeof ChainStatus>;
type Backfill = NonNullable<ChainRow["registry_backfill"]>;

/** The registry backfill in a few words: done, waiting, failing or how far it is. */
const backfillText = (backfill: Backfill): string => {
  if (backfill.done) return `registry backfill done (${backfill.logs} logs)`;
  if (backfill.error !== undefined) return `registry backfill failing: ${backfill.error}`;
  if (backfill.waiting !== undefined) return `registry backfill waiting: ${backfill.waiting}`;
  return `registry backfill ${Math.floor(backfill.fraction * 100)}% (block ${backfill.next} of ${backfill.from}-${backfill.to})`;
};

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
    // A webhook's wallets waiting for their turn; shown only while there are some.
    ...(counts.queued === undefined || counts.queued === 0 ? [] : [`${counts.queued} queued`]),
    `${counts.sweeping} sweeping`,
    `${counts.scanning} scanning history`,
    // Wallets whose history waits for a batch of log scans; shown only while there are some.
    ...(counts.scan_queued === undefined || counts.scan_queued === 0
      ? []
      : [`${counts.scan_queued} waiting to scan`]),
    `${counts.failed} failed`,
  ];
  // A chain indexed for discovered wallets only records no one else's touches: said with its count.
  const scope =
    chain.indexed_wallets === undefined
      ? ""
      : `, recording ${chain.indexed_wallets} wallet${chain.indexed_wallets === 1 ? "" : "s"}`;
  return {
    text: `discovery (index from ${chain.indexed_from ?? "?"}${scope}): ${parts.join(" · ")}`,
    alert: counts.failed > 0,
  };
};

/** The selected chain's registry backfill, one line; undefined where it has none (whole history indexed). */
export const registryLine = (
  chain: ChainRow,
): { readonly text: string; readonly alert: boolean } | undefined => {
  const backfill = chain.registry_backfill;
  if (backfill === undefined) return undefined;
  return { text: backfillText(backfill), alert: backfill.error !== undefined };
};
