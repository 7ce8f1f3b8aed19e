import { Data, Effect } from "effect";
import type { Db } from "../storage/Level.js";
import type { BlockWindow } from "./reconcile.js";

/**
 * Where a chain's follower stands, saved into the chain's lease after every
 * publish so that a restart or a takeover by another ingest process resumes
 * with no gap: the unfinalised window (its tip is the last block published)
 * and the height up to which blocks are read as history.
 */
export interface Checkpoint {
  readonly window: BlockWindow;
  /** Blocks up to here (the head when the chain was first followed) are read in bulk as history. */
  readonly historyUntil: number;
  /** First block read (the chain's `start_block`, or the head at first start); where an empty window resumes. */
  readonly start: number;
  /**
   * First block of the index's unbroken history: the first block read, or where reading resumed after
   * history the nodes no longer keep. Absent in checkpoints of earlier versions: `start` then.
   */
  readonly indexedFrom?: number;
  /**
   * Reorgs published for the chain so far: part of every message id (BlockPublisher.ts), so that
   * a block published again after a reorg away from it and back is not dropped as a duplicate.
   * Absent in checkpoints of earlier versions: 0 then.
   */
  readonly reorgs?: number;
  /**
   * The CHAIN_EVENTS sequence of the last message this checkpoint accounts for (a block or a
   * reorg): what the chain's next holder reads on from, to learn what was published after it
   * (publishedAfter.ts). Set when a follower takes the chain; absent in checkpoints of earlier versions.
   */
  readonly seq?: number;
  /** The creation time of the CHAIN_EVENTS `seq` is a sequence of: a stream made again starts over. */
  readonly stream?: string;
}

/** `ingest!checkpoint!<chain id, 12 digits>`: 12 digits fit any EIP-155 chain id in use, so keys sort by chain. */
export const checkpointKey = (chainId: number): string =>
  `ingest!checkpoint!${String(chainId).padStart(12, "0")}`;

/**
 * The checkpoint an earlier version kept in this process's LevelDB. Read only
 * when the chain's lease has none yet (the first start after upgrading), so
 * an existing deployment resumes instead of reading the chain again; never
 * written, since a local copy goes stale as soon as another process follows.
 */
export const loadCheckpoint = (
  db: Db,
  chainId: number,
): Effect.Effect<Checkpoint | undefined, CheckpointUnreadable> =>
  Effect.tryPromise({
    try: async () => (await db.get(checkpointKey(chainId))) as Checkpoint | undefined,
    // Typed, not a defect: the follower then fails, hands its lease back and is tried again;
    // a defect would end the chain's leadership loop for good.
    catch: (cause) => new CheckpointUnreadable({ chainId, cause }),
  });

/** This process's LevelDB could not be read for an earlier version's checkpoint. */
export class CheckpointUnreadable extends Data.TaggedError("CheckpointUnreadable")<{
  readonly chainId: number;
  readonly cause: unknown;
}> {
  override get message(): string {
    return `the local checkpoint of chain ${this.chainId} cannot be read: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`;
  }
}
