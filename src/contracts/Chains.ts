import { Schema } from "effect";
import { NoParams, NoQuery } from "./Common.js";
import { endpoint } from "./Endpoint.js";

const Supported = Schema.Struct({ supported: Schema.Boolean });

export class SupportedChain extends Schema.Class<SupportedChain>("SupportedChain")({
  name: Schema.String,
  chain_id: Schema.Int,
  tags: Schema.Array(Schema.String),
  balances: Supported,
  defi_positions: Supported,
  subscriptions: Supported,
}) {}

export class SupportedChainsResponse extends Schema.Class<SupportedChainsResponse>("SupportedChainsResponse")(
  {
    chains: Schema.Array(SupportedChain),
  },
) {}

export const supportedChains = endpoint({
  operationId: "getSupportedChains",
  method: "GET",
  path: "/v1/evm/supported-chains",
  subject: "svc.v1.evm.chains.get",
  auth: "public",
  group: "chains",
  summary: "Chains this deployment serves, their tags and per-endpoint support. Public, 0 CU.",
  params: NoParams,
  query: NoQuery,
  body: undefined,
  response: SupportedChainsResponse,
  responseContentType: "application/json",
});
