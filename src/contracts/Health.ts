import { Schema } from "effect";
import { ChainReachFields } from "./ChainReach.js";
import { NoParams } from "./Common.js";
import { endpoint } from "./Endpoint.js";

export class ChainHealth extends Schema.Class<ChainHealth>("ChainHealth")({
  chain_id: Schema.Int,
  name: Schema.String,
  /** Whether some RPC endpoint of the chain answers (this worker's view). */
  ok: Schema.Boolean,
  /** Whether the chain answers balances completely now: its node answers and its index is complete. */
  ready: Schema.Boolean,
  /** Why it is not ready, when it is not. */
  reason: Schema.optional(Schema.String),
  head_block: Schema.optional(Schema.Number),
  error: Schema.optional(Schema.String),
  /** Ingestion of this chain: `history` while blocks before the first start are read, `live` after. */
  ingest_mode: Schema.optional(Schema.Literal("starting", "history", "live")),
  /** Last block published to CHAIN_EVENTS. */
  processed_block: Schema.optional(Schema.NullOr(Schema.Number)),
  /** Last block this node's index has applied. */
  indexed_block: Schema.optional(Schema.NullOr(Schema.Number)),
  /** Blocks between the node's head and the last one published. */
  lag: Schema.optional(Schema.NullOr(Schema.Number)),
  events_per_second: Schema.optional(Schema.Number),
  /** Internal native transfers: read, not configured, or configured but no endpoint serves traces. */
  traces: Schema.optional(Schema.Literal("on", "off", "unavailable")),
  ...ChainReachFields,
}) {}

export class HealthResponse extends Schema.Class<HealthResponse>("HealthResponse")({
  /**
   * `ok` (200): ready. `degraded` (200): some chains' RPC nodes all fail, the rest are ready.
   * `starting` (503): a role is missing or a chain is catching up. `down` (503): no chain's node
   * answers. With `chain_id`, the status is that chain's alone: `ok` or not (503).
   */
  status: Schema.Literal("ok", "starting", "degraded", "down"),
  /** Live instances per role, from their heartbeats. */
  roles: Schema.Record({ key: Schema.String, value: Schema.Int }),
  chains: Schema.Array(ChainHealth),
  /** Chains whose RPC nodes all fail, when the service is degraded. */
  degraded_chains: Schema.optional(Schema.Array(Schema.Int)),
  /** Why the service (or the chain asked about) is not ready, when it is not. */
  reason: Schema.optional(Schema.String),
}) {}

export const HealthQuery = Schema.Struct({
  chain_id: Schema.optional(
    Schema.String.annotations({
      description:
        "A configured chain id: answer for that chain alone (200 when it is ready, 503 with the reason otherwise), for per-chain readiness checks.",
    }),
  ),
});

export const health = endpoint({
  operationId: "getHealth",
  method: "GET",
  path: "/healthz",
  subject: "svc.health.get",
  auth: "public",
  group: "operations",
  summary:
    "200 `ok` when every role is up and every chain is ready, 200 `degraded` when only some chains' RPC nodes fail, 503 `starting` or `down` otherwise; `?chain_id=` for one chain's readiness.",
  params: NoParams,
  query: HealthQuery,
  body: undefined,
  response: HealthResponse,
  responseContentType: "application/json",
});
