import { Schema } from "effect";

/**
 * A chain's registry backfill as operators see it (docs/real-chains.md): the factory, pool-manager,
 * lending and Pendle events from before the index's start, read in the background from each
 * protocol's `start_block`. Shown where the index does not hold the chain's whole history.
 */
export const RegistryBackfillStatus = Schema.Struct({
  /** Blocks `from`..`to` are read; everything below `next` is done. */
  from: Schema.Int,
  to: Schema.Int,
  next: Schema.Int,
  /** Share of the range read, 0 to 1. */
  fraction: Schema.Number,
  /** Registry logs read so far, and eth_getLogs / eth_call calls made by this worker. */
  logs: Schema.Int,
  calls: Schema.Int,
  done: Schema.Boolean,
  /** The last failure, tried again at `retry_at`. */
  error: Schema.optional(Schema.String),
  retry_at: Schema.optional(Schema.String),
  /** What it waits to know before it can start (where the index starts, what the nodes keep). */
  waiting: Schema.optional(Schema.String),
  /** V2 pairs listed through `allPairs` where the nodes keep no logs for part of the history. */
  pairs: Schema.optional(Schema.Struct({ listed: Schema.Int, of: Schema.Int })),
  /** Blocks whose logs no node keeps: pools created there are found by factory lookups only. */
  unavailable: Schema.optional(Schema.Struct({ from: Schema.Int, to: Schema.Int })),
});
export type RegistryBackfillStatus = typeof RegistryBackfillStatus.Type;
