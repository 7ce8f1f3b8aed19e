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
  /**
   * How far back `historical_prices` can be read: the oldest block whose state some RPC endpoint
   * keeps (0: every block, an archive node); null until the endpoints are probed. Offsets older
   * than that are left out of the answer, with a warning.
   */
  /**
   * First block of the index's unbroken history (0: every block); balances and positions of
   * wallets that acquired something earlier and never touched it since carry an INCOMPLETE_HISTORY
   * warning. null while no ingest process has reported the chain. On a chain indexed for discovered
   * wallets (`index_wallets: discovered`, the default of a chain without `start_block`), the index
   * records a wallet's token touches only from when it was first asked about or watched (the rest
   * is read from the chain on its first request).
   */
  indexed_from_block: Schema.optional(Schema.NullOr(Schema.Number)),
  historical_prices: Schema.optional(Schema.Struct({ state_from_block: Schema.NullOr(Schema.Number) })),
  /**
   * Whether webhooks see internal native transfers (value moved by inner calls), which need an
   * endpoint serving traces; null until the endpoints are probed.
   */
  internal_transfers: Schema.optional(Schema.Struct({ supported: Schema.NullOr(Schema.Boolean) })),
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
