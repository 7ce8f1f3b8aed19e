import type { WebhookType } from "../../contracts/Webhooks.js";

/**
 * What one block produced for one webhook, kept in the outbox's LevelDB under
 * `wh!blk!...` for the chain's finality depth: the events (so a reorg can send
 * them again with `removed: true`) and whether they were queued yet (blocks
 * wait for the chain's `confirmations` before they are).
 */
export interface BlockEvents {
  readonly webhook_id: string;
  readonly team_id: string;
  readonly type: typeof WebhookType.Type;
  readonly chain_id: number;
  readonly block_number: number;
  readonly block_hash: string;
  /** Queued for delivery (false while the block waits for confirmations). */
  readonly released: boolean;
  /** Payload elements, `removed: false`. */
  readonly events: ReadonlyArray<object>;
}

/** A block waiting for its confirmations, in `wh!pend!<chain>`. */
export interface PendingBlock {
  readonly number: number;
  readonly hash: string;
}
