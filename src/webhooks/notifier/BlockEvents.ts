import type { WebhookType } from "../../contracts/Webhooks.js";

/**
 * What one block produced for one webhook, kept in the `webhook_blocks` bucket
 * for the chain's finality depth: the events, so a reorg can send them again
 * with `removed: true`, and so a block planned twice queues nothing twice.
 */
export interface BlockEvents {
  readonly webhook_id: string;
  readonly team_id: string;
  readonly type: typeof WebhookType.Type;
  readonly chain_id: number;
  readonly block_number: number;
  readonly block_hash: string;
  /** Payload elements, `removed: false`. */
  readonly events: ReadonlyArray<object>;
}
