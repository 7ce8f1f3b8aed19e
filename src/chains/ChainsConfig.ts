import { Schema } from "effect";

/**
 * The file named by `CHAINS_CONFIG` (and written by the embedded devnet to
 * `$DATA_DIR/devnet/chains.json`): every chain the service serves, the RPC
 * endpoints it reads, and the per-chain lists that balances, pricing and
 * ingestion need. JSON, snake_case keys, addresses as 0x-hex (any case).
 */

/** A 0x-prefixed 20-byte hex address, normalised to lower case on decode. */
export const AddressString = Schema.Lowercase.pipe(
  Schema.compose(Schema.String),
  Schema.pattern(/^0x[0-9a-f]{40}$/, {
    message: () => "an address must be 0x followed by 40 hex digits",
  }),
);

/** Endpoint families a chain can support; `supported-chains` reports each. */
export const EndpointFamily = Schema.Literal("balances", "defi_positions", "subscriptions");
export type EndpointFamily = typeof EndpointFamily.Type;

/**
 * Protocol designs the service reads: constant-product pools (`v2`), V3-design pools with their
 * NonfungiblePositionManager (`v3`), the V4 singleton (`v4`), Algebra-style pools (`algebra`),
 * Aave V2 and V3 lending pools (`aave_v2`, `aave_v3`), cToken markets under a comptroller
 * (`ctoken`), Comet-design markets (`comet`), restaking StrategyManagers of the EigenLayer design
 * (`restake`) and yield-splitting factories of the Pendle V2 design (`pendle`). Forks are more entries of the same kind, told
 * apart by address and named by `protocol`.
 */
export const ProtocolKind = Schema.Literal(
  "v2",
  "v3",
  "v4",
  "algebra",
  "aave_v2",
  "aave_v3",
  "ctoken",
  "comet",
  "restake",
  "pendle",
);
export type ProtocolKind = typeof ProtocolKind.Type;

/** The pool designs whose pools set prices (docs/pricing.md). */
export const AmmKind = Schema.Literal("v2", "v3", "v4");
export type AmmKind = typeof AmmKind.Type;

/**
 * One deployment of a protocol on a chain: the protocol registry. Pools of a listed factory may
 * set prices (Algebra pools excepted) and hold positions; NFTs of a listed position manager are
 * discovered as positions. An operator adds a fork by adding an entry.
 */
export class ProtocolConfig extends Schema.Class<ProtocolConfig>("ProtocolConfig")({
  /** Name reported to users in `protocol` and `pool_type`, e.g. `UniswapV2` or a fork's name such as `SushiSwapV2`. */
  protocol: Schema.String.pipe(Schema.minLength(1)),
  kind: ProtocolKind,
  /**
   * Factory (v2, v3, algebra), PoolManager (v4), lending pool (aave_v2, aave_v3), comptroller
   * (ctoken), the market itself (comet), the StrategyManager (restake) or the yield contract factory
   * (pendle), whose `CreateYieldContract` events list the PT and YT tokens.
   */
  address: AddressString,
  /** Position manager: v3 and algebra NonfungiblePositionManager, v4 PositionManager. */
  position_manager: Schema.optional(AddressString),
  /** V4 StateView lens contract, when deployed. */
  state_view: Schema.optional(AddressString),
  /** Aave: the pool configurator, whose `ReserveInitialized` events list the reserves and their tokens. */
  configurator: Schema.optional(AddressString),
  /** Aave: the protocol data provider. */
  data_provider: Schema.optional(AddressString),
  /** ctoken: a fork of the design (positions are `LendingV2Fork`, not `LendingV2`). */
  fork: Schema.optional(Schema.Boolean),
  /** ctoken: blocks a year on this chain, to turn per-block rates into APYs (none given: no APY shown). */
  blocks_per_year: Schema.optional(Schema.Int.pipe(Schema.positive())),
  /** pendle: the market factory, whose `CreateNewMarket` events list the markets (LP tokens) of its PTs. */
  market_factory: Schema.optional(AddressString),
  /**
   * Block the protocol was deployed at: where the registry backfill starts reading its events
   * from before the index's history (docs/real-chains.md); 0 when absent.
   */
  start_block: Schema.optional(Schema.NonNegativeInt),
}) {}

/** An HTTP(S) JSON-RPC URL. */
const HttpUrl = Schema.String.pipe(
  Schema.pattern(/^https?:\/\/[^\s]+$/, { message: () => "must be an http:// or https:// URL" }),
);

const intFrom = (low: number, high: number) => {
  const message = (issue: { readonly actual: unknown }) =>
    `must be an integer from ${low} to ${high} (got ${JSON.stringify(issue.actual)})`;
  return Schema.Number.annotations({ message }).pipe(
    Schema.filter((n) => Number.isInteger(n) && n >= low && n <= high, { message }),
  );
};

const rateMessage = (issue: { readonly actual: unknown }) =>
  `must be a number of requests per second above 0 (got ${JSON.stringify(issue.actual)})`;
const positiveRate = Schema.Number.annotations({ message: rateMessage }).pipe(
  Schema.filter((n) => Number.isFinite(n) && n > 0 && n <= 1_000_000, { message: rateMessage }),
);

/**
 * Limits of an RPC endpoint, each with a default that suits a node of one's own (see
 * docs/chain-access.md): set them to what a provider's plan allows.
 */
const endpointLimits = {
  /** Requests per second, each element of a batch counting as one (default: none until the endpoint refuses for rate, then learned). */
  max_rps: Schema.optional(positiveRate),
  /** Requests in flight at once (default 16). */
  max_concurrency: Schema.optional(intFrom(1, 256)),
  /** Elements per JSON-RPC batch (default 40: under Erigon's 100 and Alchemy's advice of fewer than 50). */
  max_batch: Schema.optional(intFrom(1, 1000)),
  /** How long one request may take, in ms (default 10000). */
  timeout_ms: Schema.optional(intFrom(100, 300_000)),
};

/** One RPC endpoint of a chain: a URL, or a URL with its own limits and headers. */
export const RpcEndpointConfig = Schema.Union(
  HttpUrl,
  Schema.Struct({
    url: HttpUrl,
    /** HTTP headers sent with every request (a provider key); never shown in logs or status. */
    headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
    ...endpointLimits,
  }),
);
export type RpcEndpointConfig = typeof RpcEndpointConfig.Type;

/** A chain's RPC settings: the limits of every endpoint (each may override them) and the chain's own. */
export const RpcConfig = Schema.Struct({
  ...endpointLimits,
  /** Most blocks one eth_getLogs asks for (default 10000); lower when the node refuses larger ranges. */
  max_logs_range: Schema.optional(intFrom(1, 10_000_000)),
  /** Head reads skip an endpoint more than this many blocks behind the best one (default 5). */
  max_head_lag: Schema.optional(intFrom(0, 1_000_000)),
  /** How often an idle endpoint's head is asked for, in ms (default 2000). */
  head_poll_ms: Schema.optional(intFrom(100, 600_000)),
  /** How often each endpoint is probed for what it can answer, in seconds (default 300). */
  probe_interval_s: Schema.optional(intFrom(10, 86_400)),
});
export type RpcConfig = typeof RpcConfig.Type;

export class NativeAsset extends Schema.Class<NativeAsset>("NativeAsset")({
  symbol: Schema.String,
  name: Schema.String,
  decimals: Schema.Int.pipe(Schema.between(0, 36)),
}) {}

/**
 * The token lists shipped with the service (docs/token-lists.md): `uniswap` is
 * `@uniswap/default-token-list`, `superchain` is `@eth-optimism/tokenlist`, `metamask` is the
 * ERC-20 entries of `@metamask/contract-metadata` (Ethereum only).
 */
export const BundledTokenListName = Schema.Literal("uniswap", "superchain", "metamask");
export type BundledTokenListName = typeof BundledTokenListName.Type;

const tokenListMessage = () =>
  "must be a file path (relative to the chains file's directory, or absolute) or an http:// or https:// URL";
/** An operator's token list: a file path, or an http(s) URL (any other `scheme://` is refused). */
const TokenListLocation = Schema.String.annotations({ message: tokenListMessage })
  .pipe(
    Schema.filter(
      (s) =>
        s.trim() !== "" &&
        ![...s].some((c) => c.charCodeAt(0) < 0x20) &&
        (!/^[a-z][a-z0-9+.-]*:\/\//i.test(s) || /^https?:\/\/[^\s]+$/i.test(s)),
      { message: tokenListMessage },
    ),
  )
  .annotations({ message: tokenListMessage });

const bundledListsMessage = () =>
  "must be true, false or a list of bundled token lists (uniswap, superchain, metamask)";

export class ChainConfig extends Schema.Class<ChainConfig>("ChainConfig")({
  chain_id: Schema.Int.pipe(Schema.positive()),
  /** Lower-case API name, e.g. `ethereum`, `base`. Never accepted in `chain_ids`. */
  name: Schema.String.pipe(Schema.pattern(/^[a-z][a-z0-9_]*$/)),
  /** HTTP JSON-RPC endpoint; `rpc_urls` lists several (the first is the primary). One of the two is required. */
  rpc_url: Schema.optional(HttpUrl),
  /** HTTP JSON-RPC endpoints in order of preference: a primary and fallbacks (docs/chain-access.md). */
  rpc_urls: Schema.optional(
    Schema.Array(RpcEndpointConfig).pipe(
      Schema.minItems(1, { message: () => "must list at least one endpoint" }),
    ),
  ),
  /** Limits of this chain's endpoints and how they are watched. */
  rpc: Schema.optional(RpcConfig),
  /** WebSocket JSON-RPC endpoint; new heads are polled over HTTP when absent. */
  ws_url: Schema.optional(Schema.String.pipe(Schema.pattern(/^wss?:\/\//))),
  /** Tags usable in `chain_ids` (`default`, `mainnet`, `testnet`, ...). */
  tags: Schema.Array(Schema.String.pipe(Schema.pattern(/^[a-z][a-z0-9_]*$/))),
  /** Endpoint families served on this chain; omitted families default to supported. */
  supports: Schema.optional(Schema.partial(Schema.Record({ key: EndpointFamily, value: Schema.Boolean }))),
  native: NativeAsset,
  /** Wrapped native token (WETH9-style); native balances are priced as this token. */
  wrapped_native: Schema.optional(AddressString),
  /** USD stablecoins, each taken to be worth exactly 1 USD by pricing. */
  stablecoins: Schema.optionalWith(Schema.Array(AddressString), { default: () => [] }),
  /** Well-known tokens whose balances are always read, touched or not. */
  tokens: Schema.optionalWith(Schema.Array(AddressString), { default: () => [] }),
  /**
   * Operator token lists for this chain (docs/token-lists.md): files read at start, paths relative
   * to the chains file's directory or absolute, and http(s) URLs fetched at start and every 6 h.
   * Each holds a token list (`{ "tokens": [{ "chainId", "address", ... }] }`, entries of other
   * chain ids skipped) or a JSON array of addresses; at most 20,000 tokens a chain are taken.
   */
  token_lists: Schema.optional(
    Schema.Array(TokenListLocation)
      .annotations({ message: () => "must be a list of token list files or http(s) URLs" })
      .pipe(Schema.maxItems(64, { message: () => "must name at most 64 token lists" })),
  ),
  /**
   * Which bundled token lists serve this chain id: `true` (the default) all of them, `false` none
   * (a private chain reusing a public chain id), or a list of names (see BundledTokenListName).
   */
  bundled_token_lists: Schema.optional(
    Schema.Union(
      Schema.Boolean.annotations({ message: bundledListsMessage }),
      Schema.Array(
        Schema.Union(
          ...BundledTokenListName.literals.map((name) =>
            Schema.Literal(name).annotations({ message: () => "must be uniswap, superchain or metamask" }),
          ),
        ),
      ).annotations({ message: bundledListsMessage }),
    ),
  ),
  /** Tokens that may serve as an intermediate hop in a price route (besides wrapped native). */
  quote_tokens: Schema.optionalWith(Schema.Array(AddressString), { default: () => [] }),
  /** The protocol registry of this chain (see ProtocolConfig). */
  protocols: Schema.optionalWith(Schema.Array(ProtocolConfig), { default: () => [] }),
  /** Older name of `protocols`, still read: its entries are added to `protocols`. */
  factories: Schema.optional(Schema.Array(ProtocolConfig)),
  /** Configured token logos (image URLs) by lower-case address; `native` for the native asset. */
  logos: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), {
    default: () => ({}),
  }),
  /** Project websites by lower-case token address, served as `token_metadata.url`. */
  urls: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), {
    default: () => ({}),
  }),
  /** First block ingestion reads; defaults to the current head at first start. */
  start_block: Schema.optional(Schema.NonNegativeInt),
  /**
   * Whose token touches the index records from each block (IndexedWallets.ts): `all`, or
   * `discovered`, only wallets discovery has started for on this chain (asked about, or watched by a
   * webhook); other wallets are found from the chain on their first request. Default: see
   * {@link indexWalletsOf}.
   */
  index_wallets: Schema.optional(Schema.Literal("all", "discovered")),
  /** Whether the node serves `debug_traceBlockByNumber` (callTracer) for internal native transfers. */
  traces: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  /** Blocks to wait before a block's webhook events are delivered. */
  confirmations: Schema.optionalWith(Schema.NonNegativeInt, { default: () => 0 }),
  /** Depth after which a block is taken as final (reorgs deeper than this are not followed). */
  finality_depth: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { default: () => 64 }),
}) {}

/**
 * Whose token touches a chain's index records: as configured, else `discovered` on a chain followed
 * from the head (no `start_block`, as a real chain is configured) and `all` on one read from a
 * configured block. A chain followed from the head has its history before the service's start found
 * per wallet anyway (discovery's sweep, whose universe takes in every token a live block touches,
 * and its log scan), so recording every wallet's touches buys little there, and costs most of the
 * API worker's time a block and of its disk on a busy chain (a Base-sized chain: 3.4 GB a day with
 * `all`, 0.2 GB with `discovered`; docs/operations.md). An operator who names `start_block` asks for
 * the history from there: every wallet's.
 */
export const indexWalletsOf = (chain: ChainConfig): "all" | "discovered" =>
  chain.index_wallets ?? (chain.start_block === undefined ? "discovered" : "all");

export class ChainsConfigFile extends Schema.Class<ChainsConfigFile>("ChainsConfigFile")({
  chains: Schema.Array(ChainConfig).pipe(Schema.minItems(1)),
}) {}

export const decodeChainsConfigFile = Schema.decodeUnknown(ChainsConfigFile, {
  errors: "all",
  onExcessProperty: "error",
});

/** Every protocol deployment of a chain: `protocols`, plus entries under the older `factories` key. */
export const protocolsOf = (
  chain: Pick<ChainConfig, "protocols" | "factories">,
): ReadonlyArray<ProtocolConfig> =>
  chain.factories === undefined || chain.factories.length === 0
    ? chain.protocols
    : [...chain.protocols, ...chain.factories];
