import { Schema } from "effect";
import { Address, ChainIdsParam, Warning } from "./Common.js";
import { endpoint } from "./Endpoint.js";

/** Planned shape (spec 2.3); positions are discriminated by `type`. */
export class DefiPositionsResponse extends Schema.Class<DefiPositionsResponse>("DefiPositionsResponse")({
  wallet_address: Schema.optional(Schema.String),
  positions: Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  aggregations: Schema.optional(
    Schema.Struct({
      total_usd_value: Schema.Number,
      total_by_chain: Schema.Record({ key: Schema.String, value: Schema.Number }),
    }),
  ),
  warnings: Schema.optional(Schema.Array(Warning)),
}) {}

export const defiPositions = endpoint({
  operationId: "getDefiPositions",
  method: "GET",
  path: "/beta/evm/defi/positions/{address}",
  subject: "svc.beta.evm.defi.positions.get",
  auth: "key",
  group: "defi",
  summary: "DeFi positions of a wallet. Currently unavailable: answers 503 (spec section 7).",
  params: Schema.Struct({ address: Address }),
  query: Schema.Struct({ chain_ids: Schema.optional(ChainIdsParam) }),
  body: undefined,
  response: DefiPositionsResponse,
  responseContentType: "application/json",
});
