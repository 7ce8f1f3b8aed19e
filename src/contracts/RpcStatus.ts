import { Schema } from "effect";

/** What one process knows of one RPC endpoint (shown in /healthz, admin status and the TUI). */
export const RpcEndpointStatus = Schema.Struct({
  /** The endpoint's URL with any key or credentials replaced by `***`. */
  url: Schema.String,
  /** `ok`; `lagging` (more blocks behind the best endpoint than allowed); `failing` (unreachable or timing out: left alone for a while); `wrong_chain`; `unknown` (not answered yet). */
  state: Schema.Literal("ok", "lagging", "failing", "wrong_chain", "unknown"),
  head: Schema.NullOr(Schema.Number),
  /** Blocks behind the highest head any endpoint of the chain reported. */
  lag: Schema.NullOr(Schema.Number),
  latency_ms: Schema.NullOr(Schema.Number),
  requests: Schema.Number,
  errors: Schema.Number,
  last_error: Schema.NullOr(Schema.String),
  /** Requests per second allowed now (configured, or learned from the endpoint's refusals); null: no limit. */
  rate_limit_rps: Schema.NullOr(Schema.Number),
  /** Elements per JSON-RPC batch it takes (lowered when it refused a larger batch). */
  max_batch: Schema.Number,
  /** Oldest block whose state eth_call reads there (0: an archive node); null until probed. */
  state_from_block: Schema.NullOr(Schema.Number),
  /** Oldest block whose logs and receipts it serves; null until probed. */
  logs_from_block: Schema.NullOr(Schema.Number),
  block_receipts: Schema.NullOr(Schema.Boolean),
  traces: Schema.NullOr(Schema.Boolean),
  probed_at: Schema.NullOr(Schema.String),
});
export type RpcEndpointStatus = typeof RpcEndpointStatus.Type;

/** What a chain's endpoints together can answer. */
export const ChainNodeStatus = Schema.Struct({
  /** Oldest block with state on some endpoint (historical prices need it); null: not known yet. */
  state_from_block: Schema.NullOr(Schema.Number),
  /** Oldest block whose logs some endpoint serves (history is read from there); null: not known yet. */
  logs_from_block: Schema.NullOr(Schema.Number),
  /** Whether some endpoint serves traces (internal native transfers); null: not known yet. */
  traces: Schema.NullOr(Schema.Boolean),
  endpoints: Schema.Array(RpcEndpointStatus),
});
export type ChainNodeStatus = typeof ChainNodeStatus.Type;
