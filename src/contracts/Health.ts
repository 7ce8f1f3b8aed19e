import { Schema } from "effect";
import { NoParams, NoQuery } from "./Common.js";
import { endpoint } from "./Endpoint.js";

export class ChainHealth extends Schema.Class<ChainHealth>("ChainHealth")({
  chain_id: Schema.Int,
  name: Schema.String,
  ok: Schema.Boolean,
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
}) {}

export class HealthResponse extends Schema.Class<HealthResponse>("HealthResponse")({
  status: Schema.Literal("ok", "starting", "degraded"),
  /** Live instances per role, from their heartbeats. */
  roles: Schema.Record({ key: Schema.String, value: Schema.Int }),
  chains: Schema.Array(ChainHealth),
  /** Why the service is not ready, when it is not. */
  reason: Schema.optional(Schema.String),
}) {}

export const health = endpoint({
  operationId: "getHealth",
  method: "GET",
  path: "/healthz",
  subject: "svc.health.get",
  auth: "public",
  group: "operations",
  summary: "200 once every role is up and every configured chain answers; 503 with the reason before that.",
  params: NoParams,
  query: NoQuery,
  body: undefined,
  response: HealthResponse,
  responseContentType: "application/json",
});
