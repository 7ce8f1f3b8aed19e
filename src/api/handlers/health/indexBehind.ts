import type { IndexCheckpoint } from "../../../indexer/IndexRecords.js";
import type { FollowerStatus } from "../../../ingest/FollowerStatus.js";

/**
 * Whether this node's index has yet to apply what ingestion published for a chain: nothing indexed,
 * more than one block behind the published tip, or on a block ingestion no longer builds on. One
 * block behind is allowed (the status is written once a second, the index follows within
 * milliseconds), but only on the tip's parent: an index one block below the tip on a block a reorg
 * took away has not applied that reorg yet.
 */
export const indexBehind = (
  status: Pick<FollowerStatus, "processed" | "processed_hash" | "processed_parent_hash"> | undefined,
  indexed: IndexCheckpoint | undefined,
): boolean => {
  if (indexed === undefined) return true;
  if (status === undefined || status.processed === null) return false;
  if (indexed.number < status.processed - 1) return true;
  if (indexed.number === status.processed)
    return status.processed_hash != null && indexed.hash !== status.processed_hash;
  if (indexed.number === status.processed - 1)
    return status.processed_parent_hash != null && indexed.hash !== status.processed_parent_hash;
  return false;
};
