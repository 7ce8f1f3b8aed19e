import { Schema } from "effect";
import { Address, BlockNumberParam, BlockNumberResponse, ChainIdsParam, Warning } from "./Common.js";
import { endpoint } from "./Endpoint.js";

/**
 * DeFi positions (spec 2.3): ten shapes discriminated by `type`, in the flat form of the
 * `/beta` path. Fields marked "beyond the spec" are ours (docs/positions.md); everything the
 * spec lists has the spec's name and type. Prices and balances are numbers in whole tokens;
 * raw onchain balances are hex strings.
 */

const HexQuantity = Schema.String.pipe(Schema.pattern(/^0x[0-9a-f]+$/)).annotations({
  description: "A raw onchain amount as a 0x hex string.",
});
const Bytes32 = Schema.Array(Schema.Int.pipe(Schema.between(0, 255)))
  .pipe(Schema.itemsCount(32))
  .annotations({
    description: "32 bytes as an array of integers 0-255.",
  });
const Logo = Schema.NullOr(Schema.String).annotations({
  description: "`{base_url}/beta/token/logo/<chain_id>/<token_address>`, or null.",
});

/** Fields every position carries. */
const common = {
  chain_id: Schema.Int,
  usd_value: Schema.optional(Schema.Number),
  logo: Logo,
};

/** The token fields of a pool's two tokens. */
const pairTokens = {
  token0: Address,
  token0_name: Schema.NullOr(Schema.String),
  token0_symbol: Schema.NullOr(Schema.String),
  token0_decimals: Schema.Int,
  token1: Address,
  token1_name: Schema.NullOr(Schema.String),
  token1_symbol: Schema.NullOr(Schema.String),
  token1_decimals: Schema.Int,
};

/** Fungible LP tokens of a constant-product pool (Uniswap V2 and forks). */
export class AmmV2Position extends Schema.Class<AmmV2Position>("AmmV2Position")({
  type: Schema.Literal("AmmV2"),
  ...common,
  protocol: Schema.String,
  pool: Address,
  ...pairTokens,
  lp_balance: HexQuantity,
  token0_price: Schema.optional(Schema.Number),
  token1_price: Schema.optional(Schema.Number),
  calculated_balance: Schema.Number.annotations({ description: "LP tokens held, in whole LP tokens." }),
  price_in_usd: Schema.optional(Schema.Number.annotations({ description: "USD value of one LP token." })),
  token0_holdings: Schema.Number.annotations({
    description: "Beyond the spec: the wallet's share of reserve0.",
  }),
  token1_holdings: Schema.Number.annotations({
    description: "Beyond the spec: the wallet's share of reserve1.",
  }),
  share_of_pool: Schema.Number.annotations({ description: "Beyond the spec: LP balance / total supply." }),
}) {}

/** One position NFT inside an Nft or NftV4 entry. */
export class LiquidityNft extends Schema.Class<LiquidityNft>("LiquidityNft")({
  tick_lower: Schema.Int,
  tick_upper: Schema.Int,
  token_id: HexQuantity,
  token0_price: Schema.optional(Schema.Number),
  token0_holdings: Schema.Number,
  token0_rewards: Schema.Number.annotations({ description: "Uncollected fees, tokensOwed included." }),
  token1_price: Schema.optional(Schema.Number),
  token1_holdings: Schema.Number,
  token1_rewards: Schema.Number,
  in_range: Schema.Boolean.annotations({
    description: "Beyond the spec: the pool's tick is inside the range.",
  }),
  liquidity: Schema.String.annotations({
    description: "Beyond the spec: the position's liquidity, decimal.",
  }),
}) {}

/** Concentrated-liquidity NFTs of the V3 design and its forks (and Algebra-style pools), one entry per pool. */
export class NftPosition extends Schema.Class<NftPosition>("NftPosition")({
  type: Schema.Literal("Nft"),
  ...common,
  protocol: Schema.String,
  pool: Address,
  ...pairTokens,
  positions: Schema.Array(LiquidityNft),
  fee: Schema.NullOr(Schema.Int).annotations({
    description: "Beyond the spec: the pool's fee in hundredths of a bip (Algebra: the current dynamic fee).",
  }),
  tick_current: Schema.Int.annotations({ description: "Beyond the spec: the pool's current tick." }),
}) {}

/** Uniswap V4 position NFTs; each position has its own salt, so each is its own entry. */
export class NftV4Position extends Schema.Class<NftV4Position>("NftV4Position")({
  type: Schema.Literal("NftV4"),
  ...common,
  protocol: Schema.String,
  pool_id: Bytes32,
  pool_manager: Address,
  salt: Bytes32,
  ...pairTokens,
  positions: Schema.Array(LiquidityNft),
  fee: Schema.NullOr(Schema.Int).annotations({ description: "Beyond the spec: the pool key's fee." }),
  tick_current: Schema.Int.annotations({ description: "Beyond the spec: the pool's current tick." }),
  hooks: Address.annotations({
    description: "Beyond the spec: the pool's hooks contract (zero address: none).",
  }),
}) {}

/** A USD quote of a lending leg; debt amounts are positive numbers inside a debt quote. */
export class LendingQuote extends Schema.Class<LendingQuote>("LendingQuote")({
  calculated_balance: Schema.Number.annotations({ description: "Whole units of the underlying token." }),
  price_in_usd: Schema.optional(Schema.Number),
  usd_value: Schema.optional(Schema.Number),
}) {}

const lendingExtras = {
  health_factor: Schema.optional(
    Schema.NullOr(Schema.Number).annotations({
      description:
        "Beyond the spec: the account's health factor in this market, as the protocol computes it (null: no debt).",
    }),
  ),
  supply_apy: Schema.optional(
    Schema.Number.annotations({ description: "Beyond the spec: supply rate as APY." }),
  ),
  borrow_apy: Schema.optional(
    Schema.Number.annotations({ description: "Beyond the spec: borrow rate as APY." }),
  ),
};

/** Lending supply tokens and variable-debt tokens (Aave design); `usd_value` of debt is negative. */
export class TokenizedPosition extends Schema.Class<TokenizedPosition>("TokenizedPosition")({
  type: Schema.Literal("Tokenized"),
  ...common,
  token_type: Schema.Literal("SupplyTokenV2", "VariableDebtV2", "SupplyTokenV3", "VariableDebtV3"),
  token: Address,
  token_name: Schema.NullOr(Schema.String),
  token_symbol: Schema.NullOr(Schema.String),
  calculated_balance: Schema.Number.annotations({ description: "Whole units of the underlying token." }),
  price_in_usd: Schema.optional(Schema.Number),
  underlying_token: Address.annotations({ description: "Beyond the spec: the reserve's asset." }),
  lending_pool: Address.annotations({ description: "Beyond the spec: the lending pool." }),
  collateral_enabled: Schema.optional(Schema.Boolean.annotations({ description: "Beyond the spec." })),
  ...lendingExtras,
}) {}

const cTokenFields = {
  ...common,
  protocol: Schema.String,
  token_type: Schema.String,
  token: Address,
  token_name: Schema.NullOr(Schema.String),
  token_symbol: Schema.NullOr(Schema.String),
  supply_quote: Schema.optional(LendingQuote),
  debt_quote: Schema.optional(LendingQuote),
  collateral_enabled: Schema.optional(Schema.Boolean.annotations({ description: "Beyond the spec." })),
  ...lendingExtras,
};

/** Supply and borrow in cToken-style markets; `usd_value` is supply minus debt. */
export class LendingV2Position extends Schema.Class<LendingV2Position>("LendingV2Position")({
  type: Schema.Literal("LendingV2"),
  ...cTokenFields,
}) {}

/** Supply and borrow in a fork of the cToken design; `usd_value` is supply minus debt. */
export class LendingV2ForkPosition extends Schema.Class<LendingV2ForkPosition>("LendingV2ForkPosition")({
  type: Schema.Literal("LendingV2Fork"),
  ...cTokenFields,
}) {}

/** Collateral of one asset in a multi-asset market. */
export class CollateralQuote extends Schema.Class<CollateralQuote>("CollateralQuote")({
  token: Address,
  token_symbol: Schema.NullOr(Schema.String),
  calculated_balance: Schema.Number,
  price_in_usd: Schema.optional(Schema.Number),
  usd_value: Schema.optional(Schema.Number),
}) {}

/**
 * Base-asset supply and borrow plus collateral per asset in a multi-asset market (Comet design);
 * `usd_value` is supply plus collateral minus debt.
 */
export class LendingV3Position extends Schema.Class<LendingV3Position>("LendingV3Position")({
  type: Schema.Literal("LendingV3"),
  ...common,
  protocol: Schema.String,
  market: Address,
  base_token: Address,
  base_token_name: Schema.NullOr(Schema.String),
  base_token_symbol: Schema.NullOr(Schema.String),
  supply_quote: Schema.optional(LendingQuote),
  debt_quote: Schema.optional(LendingQuote),
  collateral: Schema.Array(CollateralQuote),
  ...lendingExtras,
}) {}

/** ERC-4626 vault shares; amounts are in the vault's asset (for a vault over a vault, the inner vault's shares). */
export class Erc4626Position extends Schema.Class<Erc4626Position>("Erc4626Position")({
  type: Schema.Literal("Erc4626"),
  ...common,
  token: Address,
  token_name: Schema.NullOr(Schema.String),
  token_symbol: Schema.NullOr(Schema.String),
  underlying_token: Address,
  underlying_token_name: Schema.NullOr(Schema.String),
  underlying_token_symbol: Schema.NullOr(Schema.String),
  underlying_token_decimals: Schema.Int,
  calculated_balance: Schema.Number.annotations({
    description: "`convertToAssets(shares)` in whole units of the underlying token.",
  }),
  price_in_usd: Schema.optional(
    Schema.Number.annotations({ description: "USD price of one underlying token." }),
  ),
  shares: HexQuantity.annotations({ description: "Beyond the spec: the vault shares held (`balanceOf`)." }),
}) {}

/**
 * Principal, yield and LP tokens of a yield-splitting protocol (Pendle V2 design). `calculated_balance`
 * is the token amount in whole tokens and `price_in_usd` the USD price of one whole token.
 */
export class YieldSplitPosition extends Schema.Class<YieldSplitPosition>("YieldSplitPosition")({
  type: Schema.Literal("YieldSplit"),
  ...common,
  protocol: Schema.String.annotations({ description: "Beyond the spec: the registry deployment's name." }),
  token: Address,
  token_type: Schema.Literal("Principal", "Yield", "LP"),
  balance: HexQuantity.annotations({ description: "The token held (`balanceOf`)." }),
  token_name: Schema.NullOr(Schema.String),
  token_symbol: Schema.NullOr(Schema.String),
  token_decimals: Schema.Int,
  market: Schema.NullOr(Address).annotations({
    description: "The market trading the PT (for LP, the market itself); null when the PT has none.",
  }),
  asset: Address.annotations({ description: "The SY's asset: what one PT redeems for at expiry." }),
  asset_name: Schema.NullOr(Schema.String),
  asset_symbol: Schema.NullOr(Schema.String),
  asset_decimals: Schema.Int,
  calculated_balance: Schema.Number.annotations({ description: "`balance` in whole tokens." }),
  price_in_usd: Schema.optional(
    Schema.Number.annotations({
      description:
        "USD price of one whole token: PT = asset price (after expiry) or asset price × exp(−implied rate × time left) before it; YT = asset price − PT price; LP = its share of the market's PT and SY.",
    }),
  ),
  expiry: Schema.Int.annotations({ description: "Beyond the spec: the expiry, unix seconds." }),
  expired: Schema.Boolean.annotations({
    description: "Beyond the spec: whether the read's block is at or past expiry.",
  }),
  implied_apy: Schema.optional(
    Schema.Number.annotations({
      description: "Beyond the spec: the market's implied APY (before expiry, with a market).",
    }),
  ),
  asset_rewards: Schema.optional(
    Schema.Number.annotations({
      description:
        "Beyond the spec, Yield only: interest accrued to the holder and not yet claimed, in whole asset tokens, net of the protocol's fee; counted in `usd_value`.",
    }),
  ),
}) {}

/**
 * Shares of a staker in a restaking strategy (EigenLayer design). The spec lists no fields: they follow
 * Erc4626's naming, with the strategy as `token`.
 */
export class RestakeStrategyPosition extends Schema.Class<RestakeStrategyPosition>("RestakeStrategyPosition")(
  {
    type: Schema.Literal("RestakeStrategy"),
    ...common,
    protocol: Schema.String,
    token: Address.annotations({ description: "The strategy contract." }),
    shares: HexQuantity.annotations({ description: "`stakerStrategyShares(staker, strategy)`." }),
    underlying_token: Address,
    underlying_token_name: Schema.NullOr(Schema.String),
    underlying_token_symbol: Schema.NullOr(Schema.String),
    underlying_token_decimals: Schema.Int,
    calculated_balance: Schema.Number.annotations({
      description: "`sharesToUnderlyingView(shares)` in whole units of the underlying token.",
    }),
    price_in_usd: Schema.optional(Schema.Number),
    strategy_manager: Address.annotations({ description: "Beyond the spec: the registry StrategyManager." }),
    operator: Schema.NullOr(Address).annotations({
      description: "Beyond the spec: the operator the staker is delegated to (null: not delegated).",
    }),
  },
) {}

/** Any position; `type` tells which. */
export const Position = Schema.Union(
  AmmV2Position,
  NftPosition,
  NftV4Position,
  TokenizedPosition,
  LendingV2Position,
  LendingV2ForkPosition,
  LendingV3Position,
  Erc4626Position,
  YieldSplitPosition,
  RestakeStrategyPosition,
);
export type Position = typeof Position.Type;

export class PositionAggregations extends Schema.Class<PositionAggregations>("PositionAggregations")({
  total_usd_value: Schema.Number,
  total_by_chain: Schema.Record({ key: Schema.String, value: Schema.Number }).annotations({
    description: "USD total per chain, keyed by chain id as a string.",
  }),
}) {}

export class ChainFailure extends Schema.Class<ChainFailure>("PositionsChainFailure")({
  chain_id: Schema.Int,
  description: Schema.String,
}) {}

export class DefiPositionsResponse extends Schema.Class<DefiPositionsResponse>("DefiPositionsResponse")({
  wallet_address: Schema.String,
  positions: Schema.Array(Position),
  aggregations: PositionAggregations,
  errors: Schema.optional(
    Schema.Struct({
      error_message: Schema.optional(Schema.String),
      chain_errors: Schema.optional(Schema.Array(ChainFailure)),
    }),
  ),
  warnings: Schema.optional(Schema.Array(Warning)),
  ...BlockNumberResponse.fields,
}) {}

export const defiPositions = endpoint({
  operationId: "getDefiPositions",
  method: "GET",
  path: "/beta/evm/defi/positions/{address}",
  subject: "svc.beta.evm.defi.positions.get",
  auth: "key",
  group: "defi",
  summary: "DeFi positions of a wallet on every requested chain, valued at onchain prices. 2 CU per chain.",
  params: Schema.Struct({ address: Address }),
  description:
    "With `block_number` the answer is as of that block of the one chain `chain_ids` names: positions the wallet held then (including those it has since given up), amounts and prices read at that block, which `block_number` and `block_time` name.",
  query: Schema.Struct({ chain_ids: Schema.optional(ChainIdsParam), block_number: BlockNumberParam }),
  body: undefined,
  response: DefiPositionsResponse,
  responseContentType: "application/json",
});
