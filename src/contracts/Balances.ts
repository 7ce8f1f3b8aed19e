import { Schema } from "effect";
import {
  Address,
  BlockNumberParam,
  BlockNumberResponse,
  ChainIdsParam,
  TokenAddressOrNative,
  Warning,
} from "./Common.js";
import { endpoint } from "./Endpoint.js";

export class HistoricalPrice extends Schema.Class<HistoricalPrice>("HistoricalPrice")({
  offset_hours: Schema.Int,
  price_usd: Schema.Number,
}) {}

export class TokenMetadata extends Schema.Class<TokenMetadata>("TokenMetadata")({
  logo: Schema.optional(Schema.String),
  url: Schema.optional(Schema.String),
}) {}

export class PricingPool extends Schema.Class<PricingPool>("PricingPool")({
  pool_type: Schema.String,
  address: Schema.String,
  chain_id: Schema.Int,
  tokens: Schema.Array(Schema.String),
}) {}

/** One holding (spec 2.2). Price fields are absent, never zero, when a token has no price. */
export class BalanceEntry extends Schema.Class<BalanceEntry>("BalanceEntry")({
  chain: Schema.String,
  chain_id: Schema.Int,
  address: Schema.String.annotations({ description: "Token contract (lower case) or `native`." }),
  amount: Schema.String.annotations({ description: "Integer amount in the token's smallest unit." }),
  symbol: Schema.optional(Schema.String),
  name: Schema.optional(Schema.String),
  decimals: Schema.optional(Schema.Int),
  price_usd: Schema.optional(Schema.Number),
  value_usd: Schema.optional(Schema.Number),
  pool_size: Schema.optional(Schema.Number),
  low_liquidity: Schema.optional(Schema.Boolean),
  historical_prices: Schema.optional(Schema.Array(HistoricalPrice)),
  token_metadata: Schema.optional(TokenMetadata),
  pool: Schema.optional(PricingPool),
}) {}

export class ChainFailure extends Schema.Class<ChainFailure>("ChainFailure")({
  chain_id: Schema.Int,
  description: Schema.String,
}) {}

export class BalancesErrors extends Schema.Class<BalancesErrors>("BalancesErrors")({
  error_message: Schema.optional(Schema.String),
  chain_errors: Schema.optional(Schema.Array(ChainFailure)),
}) {}

export class BalancesResponse extends Schema.Class<BalancesResponse>("BalancesResponse")({
  wallet_address: Schema.String,
  balances: Schema.Array(BalanceEntry),
  errors: Schema.optional(BalancesErrors),
  warnings: Schema.optional(Schema.Array(Warning)),
  next_offset: Schema.optional(Schema.String),
  ...BlockNumberResponse.fields,
  request_time: Schema.optional(Schema.String),
  response_time: Schema.optional(Schema.String),
}) {}

const optionalString = (description: string) => Schema.optional(Schema.String.annotations({ description }));

export const BalancesQuery = Schema.Struct({
  chain_ids: Schema.optional(ChainIdsParam),
  filters: optionalString("`erc20` or `native`: only that asset class."),
  metadata: optionalString("Comma-separated list from `logo`, `url`, `pools`."),
  exclude_spam_tokens: optionalString(
    "`true` drops tokens priced from under 100 USD of liquidity. `true`/`false`/`1`/`0`; given without a value (`?exclude_spam_tokens` or `exclude_spam_tokens=`) it means `true`.",
  ),
  historical_prices: optionalString(
    "1 to 3 comma-separated whole numbers of hours in the past, each at most once (a repeated offset is a 400).",
  ),
  offset: optionalString("Cursor: only a value previously returned as `next_offset`."),
  limit: optionalString("1 to 1000, default 1000; values above 1000 are reduced to 1000."),
  block_number: BlockNumberParam,
});

export const balances = endpoint({
  operationId: "getBalances",
  method: "GET",
  path: "/v1/evm/balances/{address}",
  subject: "svc.v1.evm.balances.get",
  auth: "key",
  group: "balances",
  summary: "Native and ERC-20 balances of a wallet with onchain USD prices. 1 CU per chain.",
  description:
    "With `block_number` the answer is as of that block of the one chain `chain_ids` names: amounts and prices read at that block, which `block_number` and `block_time` name. `historical_prices` offsets then count back from that block's time, and `next_offset` pages through that block only.",
  params: Schema.Struct({ address: Address }),
  query: BalancesQuery,
  body: undefined,
  response: BalancesResponse,
  responseContentType: "application/json",
});

export const tokenBalance = endpoint({
  operationId: "getTokenBalance",
  method: "GET",
  path: "/v1/evm/balances/{address}/token/{token_address}",
  subject: "svc.v1.evm.balances.token.get",
  auth: "key",
  group: "balances",
  summary: "One token's balance of a wallet on exactly one chain. 1 CU.",
  description:
    "`token_address` is an ERC-20 contract or `native`. An ERC-721 or ERC-1155 contract, or an address that does not answer `balanceOf(address)`, is a 400 `NOT_AN_ERC20_TOKEN`.",
  params: Schema.Struct({ address: Address, token_address: TokenAddressOrNative }),
  query: Schema.Struct({
    chain_ids: Schema.optional(ChainIdsParam),
    metadata: BalancesQuery.fields.metadata,
    historical_prices: BalancesQuery.fields.historical_prices,
    block_number: BlockNumberParam,
  }),
  body: undefined,
  response: BalancesResponse,
  responseContentType: "application/json",
});
