import type { IndexGap, IndexTrimmed } from "../indexer/Indexer.js";
import { INDEX_CHAIN_TRIMMED_PREFIX, INDEX_GAP_PREFIX, INDEX_TRIMMED_KEY } from "../indexer/indexKeys.js";
import type { Db } from "../storage/Level.js";
import type { WalletDiscovery } from "./WalletDiscovery.js";

/** Each record under `prefix`, with the chain id its key ends in; none when the read fails. */
const eachChainRecord = async <A>(db: Db, prefix: string, tell: (chainId: number, record: A) => void) => {
  try {
    for await (const [key, record] of db.iterator({ gte: prefix, lt: `${prefix}~` }))
      tell(Number((key as string).slice(prefix.length)), record as A);
  } catch {
    // An index that cannot be read fails its requests anyway; discovery starts without these.
  }
};

/**
 * Tells a starting process's discovery what its index recorded as missed before (Indexer.ts), so
 * the sweeps and scans made before then stay stale across the restart: dropped stream messages,
 * on every chain (a record there that names a chain is an earlier version's, read as every
 * chain's too); a chain's blocks ingest never published, on that chain; and the blocks each
 * chain's index jumped over, which its wallets' log scans read up to.
 */
export const tellRecordedMisses = async (
  db: Db,
  discovery: Pick<WalletDiscovery, "indexTrimmed" | "indexGap">,
): Promise<void> => {
  const trimmed = (await db.get(INDEX_TRIMMED_KEY).catch(() => undefined)) as IndexTrimmed | undefined;
  if (trimmed !== undefined) discovery.indexTrimmed(trimmed.at);
  await eachChainRecord<IndexTrimmed>(db, INDEX_CHAIN_TRIMMED_PREFIX, (chainId, missed) =>
    discovery.indexTrimmed(missed.at, chainId),
  );
  await eachChainRecord<IndexGap>(db, INDEX_GAP_PREFIX, (chainId, gap) =>
    discovery.indexGap(chainId, gap.to),
  );
};
