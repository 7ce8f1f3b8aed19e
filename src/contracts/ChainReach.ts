import { Schema } from "effect";
import { RegistryBackfillStatus } from "./RegistryBackfillStatus.js";
import { ChainNodeStatus } from "./RpcStatus.js";

/**
 * What a chain's status says of how far the service can see into the chain without its own
 * history, alike in `/healthz` and the admin chain status: spread into both.
 */
export const ChainReachFields = {
  /** Blocks of history not read because no endpoint keeps their logs any more. */
  history_skipped: Schema.optional(Schema.NullOr(Schema.Struct({ from: Schema.Number, to: Schema.Number }))),
  /**
   * The last run of live blocks not read because every endpoint had pruned them when ingest got to
   * them (it was stopped or behind for longer than the nodes keep receipts): the index lacks them.
   */
  blocks_skipped: Schema.optional(Schema.Struct({ from: Schema.Number, to: Schema.Number })),
  /**
   * The last run of live blocks read without internal native transfers: the nodes no longer kept the
   * state to trace them when ingest got to them. Their logs are indexed; transfers of native value
   * by contracts within them are missing from webhooks.
   */
  blocks_untraced: Schema.optional(Schema.Struct({ from: Schema.Number, to: Schema.Number })),
  /** The chain's RPC endpoints and what they can answer, as the ingest process following it sees them. */
  node: Schema.optional(ChainNodeStatus),
  /**
   * Wallets the answering API worker has discovered on the chain since it started, by state
   * (docs/real-chains.md); absent where the index holds the chain's whole history.
   */
  discovery: Schema.optional(
    Schema.Struct({
      /** Wallets a webhook started watching that wait for their turn; absent from older workers. */
      queued: Schema.optional(Schema.Int),
      sweeping: Schema.Int,
      /** Wallets whose transfer history is being read now. */
      scanning: Schema.Int,
      /** Wallets whose transfer history waits for a batch of log scans; absent from older workers. */
      scan_queued: Schema.optional(Schema.Int),
      complete: Schema.Int,
      failed: Schema.Int,
    }),
  ),
  /** The chain's registry backfill (docs/real-chains.md); absent where the index holds its whole history. */
  registry_backfill: Schema.optional(RegistryBackfillStatus),
};
