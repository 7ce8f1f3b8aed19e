import { Schema } from "effect";

/** A pool in the manifest; see docs/devnet.md for the meaning of each field. */
export const ManifestPool = Schema.Struct({
  protocol: Schema.String,
  kind: Schema.Literal("v2", "v3", "v4"),
  address: Schema.NullOr(Schema.String),
  pool_id: Schema.NullOr(Schema.String),
  token0: Schema.String,
  token1: Schema.String,
  symbol0: Schema.String,
  symbol1: Schema.String,
  fee: Schema.Number,
  tick_spacing: Schema.NullOr(Schema.Number),
  hooks: Schema.NullOr(Schema.String),
  purpose: Schema.String,
});
export type ManifestPool = typeof ManifestPool.Type;

/** A token in the manifest, keyed by symbol. */
export const ManifestToken = Schema.Struct({
  address: Schema.String,
  decimals: Schema.Number,
  role: Schema.String,
});
export type ManifestToken = typeof ManifestToken.Type;

/** A liquidity position the seed opened; see docs/devnet.md ("Liquidity positions") for each field. */
export const ManifestLiquidityPosition = Schema.Struct({
  kind: Schema.Literal("v2", "v3", "v4", "algebra"),
  protocol: Schema.String,
  wallet: Schema.String,
  owner: Schema.String,
  token_id: Schema.NullOr(Schema.String),
  pool: Schema.String,
  position_manager: Schema.NullOr(Schema.String),
  tick_lower: Schema.NullOr(Schema.Number),
  tick_upper: Schema.NullOr(Schema.Number),
  purpose: Schema.Literal(
    "v2_lp",
    "fork_v2_lp",
    "in_range",
    "below_range",
    "above_range",
    "tokens_owed",
    "native_eth",
    "hooked",
    "transferred",
    "burned",
    "algebra",
    "every_type",
  ),
});
export type ManifestLiquidityPosition = typeof ManifestLiquidityPosition.Type;

/**
 * A lending market the seed deployed; see docs/devnet.md ("Lending markets"). `address` is the
 * registry address (Aave pool, comptroller, Comet); `assets` lists what can be supplied or
 * borrowed there with the market's own token for each side.
 */
export const ManifestLendingMarket = Schema.Struct({
  kind: Schema.Literal("aave_v2", "aave_v3", "ctoken", "comet"),
  protocol: Schema.String,
  address: Schema.String,
  /** Other contracts of the deployment by role (configurator, data_provider, oracle, ...). */
  contracts: Schema.Record({ key: Schema.String, value: Schema.String }),
  assets: Schema.Array(
    Schema.Struct({
      symbol: Schema.String,
      asset: Schema.String,
      /** aToken, cToken; null for Comet (base supply is the Comet itself; collateral has none). */
      supply_token: Schema.NullOr(Schema.String),
      /** Variable debt token (Aave); null elsewhere (cToken and Comet debt is not a token). */
      debt_token: Schema.NullOr(Schema.String),
      /** Comet: the base asset or a collateral asset. */
      role: Schema.optional(Schema.Literal("base", "collateral")),
    }),
  ),
});
export type ManifestLendingMarket = typeof ManifestLendingMarket.Type;

/** A lending position the seed opened: one side (supply, debt or collateral) of one asset in one market. */
export const ManifestLendingPosition = Schema.Struct({
  kind: Schema.Literal("aave_v2", "aave_v3", "ctoken", "comet"),
  protocol: Schema.String,
  /** Role name of the wallet (see `wallets`). */
  wallet: Schema.String,
  owner: Schema.String,
  /** The market's registry address. */
  market: Schema.String,
  asset: Schema.String,
  side: Schema.Literal("supply", "debt", "collateral"),
  purpose: Schema.Literal("supplier", "borrower", "every_market", "debt_only", "liquidated", "every_type"),
});
export type ManifestLendingPosition = typeof ManifestLendingPosition.Type;

/**
 * An ERC-4626 vault the seed deployed (docs/devnet.md, "Vaults and restaking"): over USDC, over WETH,
 * over another vault's shares (`nested`), or over USDC with its share price raised by a donation.
 */
export const ManifestVault = Schema.Struct({
  purpose: Schema.Literal("usdc", "weth", "nested", "donated"),
  address: Schema.String,
  symbol: Schema.String,
  /** The vault's `asset()`: a token, or for `nested` the other vault. */
  asset: Schema.String,
  /** Addresses holding shares after the seed. */
  holders: Schema.Array(Schema.String),
});
export type ManifestVault = typeof ManifestVault.Type;

/** The restaking stand-ins (EigenLayer design) on ethereum, with the seeded deposits. */
export const ManifestRestaking = Schema.Struct({
  protocol: Schema.String,
  strategy_manager: Schema.String,
  delegation_manager: Schema.String,
  strategies: Schema.Array(
    Schema.Struct({ address: Schema.String, underlying: Schema.String, symbol: Schema.String }),
  ),
  /** One entry per (staker, strategy) deposit, with the operator the staker delegated to. */
  deposits: Schema.Array(
    Schema.Struct({ staker: Schema.String, strategy: Schema.String, operator: Schema.NullOr(Schema.String) }),
  ),
});
export type ManifestRestaking = typeof ManifestRestaking.Type;

/**
 * The Pendle V2 deployment (docs/devnet.md, "Pendle"): an SY over a devnet ERC-4626 vault, PT and YT
 * of one expiry the seed's time passes (`past`) and one still ahead (`future`, with its market), and
 * who holds PT, YT and LP after the seed.
 */
export const ManifestPendle = Schema.Struct({
  protocol: Schema.String,
  yield_contract_factory: Schema.String,
  market_factory: Schema.String,
  gauge_controller: Schema.String,
  ve_pendle: Schema.String,
  vault: Schema.String,
  sy: Schema.String,
  asset: Schema.String,
  expiries: Schema.Array(
    Schema.Struct({
      purpose: Schema.Literal("past", "future"),
      expiry: Schema.Number,
      pt: Schema.String,
      yt: Schema.String,
      market: Schema.NullOr(Schema.String),
    }),
  ),
  holders: Schema.Array(Schema.String),
});
export type ManifestPendle = typeof ManifestPendle.Type;

/** Everything about one devnet chain. */
export const ManifestChain = Schema.Struct({
  chain_id: Schema.Number,
  name: Schema.String,
  rpc_url: Schema.String,
  ws_url: Schema.String,
  tags: Schema.Array(Schema.String),
  amm_start_block: Schema.Number,
  seed_head_block: Schema.Number,
  seed_head_timestamp: Schema.Number,
  tokens: Schema.Record({ key: Schema.String, value: ManifestToken }),
  paging_token_count: Schema.Number,
  pools: Schema.Array(ManifestPool),
  contracts: Schema.Record({ key: Schema.String, value: Schema.String }),
  wallets: Schema.Record({ key: Schema.String, value: Schema.String }),
  positions: Schema.Struct({ v3: Schema.Array(Schema.String), v4: Schema.Array(Schema.String) }),
  liquidity_positions: Schema.Array(ManifestLiquidityPosition),
  lending_markets: Schema.optionalWith(Schema.Array(ManifestLendingMarket), { default: () => [] }),
  lending_positions: Schema.optionalWith(Schema.Array(ManifestLendingPosition), { default: () => [] }),
  vaults: Schema.optionalWith(Schema.Array(ManifestVault), { default: () => [] }),
  restaking: Schema.optionalWith(Schema.NullOr(ManifestRestaking), { default: () => null }),
  pendle: Schema.optionalWith(Schema.NullOr(ManifestPendle), { default: () => null }),
});
export type ManifestChain = typeof ManifestChain.Type;

/** A funded anvil dev account with its key, for scripts. */
export const ManifestAccount = Schema.Struct({
  index: Schema.Number,
  address: Schema.String,
  private_key: Schema.String,
});

/** `$DATA_DIR/devnet.json`: how to reach and use the running devnet. */
export const DevnetManifest = Schema.Struct({
  version: Schema.Literal(1),
  api_key: Schema.NullOr(Schema.String),
  seeded_at: Schema.String,
  chains_config_path: Schema.String,
  accounts: Schema.Array(ManifestAccount),
  chains: Schema.Array(ManifestChain),
});
export type DevnetManifest = typeof DevnetManifest.Type;

/** Parses manifest JSON text, failing with a readable message when the file is not a manifest. */
export const parseDevnetManifest = (text: string): DevnetManifest =>
  Schema.decodeUnknownSync(DevnetManifest)(JSON.parse(text));
