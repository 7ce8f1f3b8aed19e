/** What the indexer stores about a (wallet, token) pair. */
export interface TouchedToken {
  readonly standard: "erc20" | "erc721" | "erc1155";
  /** First block where the wallet touched the token (a reorg of that block removes the entry). */
  readonly first_block: number;
}

/**
 * A token's metadata as read from the chain. Each field is `null` when the
 * token does not implement it, reverts, or answers something unusable.
 */
export interface TokenMetadata {
  readonly name: string | null;
  readonly symbol: string | null;
  /** 0 to 36; larger values are treated as unusable. */
  readonly decimals: number | null;
}

/** A pool from a configured factory (or pool manager). */
export interface IndexedPool {
  /** Pool address (v2, v3) or pool id (v4). */
  readonly pool: string;
  /** Algebra pools hold positions but do not set prices. */
  readonly kind: "v2" | "v3" | "v4" | "algebra";
  /** Protocol name from the factory's configuration, e.g. `UniswapV3` or a fork's name. */
  readonly protocol: string;
  readonly factory: string;
  readonly token0: string;
  readonly token1: string;
  /** Hundredths of a basis point (v3, v4); v2 pools have a protocol-wide fee, Algebra pools a dynamic one. */
  readonly fee: number | null;
  readonly tick_spacing: number | null;
  /** v4 hooks contract. */
  readonly hooks: string | null;
  readonly created_block: number;
}

/** A position NFT a wallet holds (`idx!wn!`). */
export interface WalletNft {
  /** Block at which the wallet received it. */
  readonly block: number;
}

/** Where a position NFT was minted (`idx!nft!`): its pool (V4: pool id) and tick range, which never change. */
export interface NftRecord {
  readonly pool: string;
  readonly tick_lower: number;
  readonly tick_upper: number;
}

/**
 * One change a block made to the index, as its undo record keeps it: a key the block added
 * (deleted on undo), or a key the block changed or deleted with the value it had before.
 */
export type UndoEntry = string | { readonly key: string; readonly value: unknown };

/**
 * A token that carries a lending position (`idx!lt!`): an Aave aToken (supply) or variable debt
 * token (debt), a cToken (supply; its borrows are not a token), or a Comet (its base supply, with
 * the base token as asset). Known from the registry deployment's own events, so a look-alike
 * token never passes for one.
 */
export interface LendingToken {
  readonly kind: "aave_v2" | "aave_v3" | "ctoken" | "comet";
  /** The registry address: the Aave pool, the cToken's comptroller, or the Comet. */
  readonly market: string;
  readonly side: "supply" | "debt";
  /** The reserve's asset or the cToken's underlying; the zero address for a native-currency market. */
  readonly asset: string;
}

/**
 * A wallet's part in a lending market that no token of its own shows (`idx!lw!`): a cToken it
 * borrowed from, or a Comet market it supplied to, borrowed from or put collateral in (with the
 * collateral asset). Kept once seen; the balances read at request time say what is left.
 */
export interface LendingParticipation {
  readonly block: number;
}

/**
 * What probing a token for ERC-4626 found (`idx!vt!`), once per token, the first time a wallet
 * touches it: the vault's `asset()`, or null when the token is not a vault (see VaultLens.sol for
 * what a token must answer to count as one).
 */
export interface VaultProbe {
  readonly asset: string | null;
}

/**
 * A staker's deposit into a restaking strategy of a registry StrategyManager (`idx!rs!`), from its
 * `Deposit` event, with the strategy's token. Kept once seen; the shares read at request time say
 * what is left.
 */
export interface RestakeDeposit {
  readonly token: string;
  readonly block: number;
}

/**
 * A principal token, yield token or market (LP token) of a registry yield contract factory of the
 * Pendle V2 design (`idx!ys!`), from the factory's `CreateYieldContract` and its market factory's
 * `CreateNewMarket`, with the SY's asset read once (`assetInfo()`). Every token of one expiry carries
 * the same SY, PT, YT, expiry and asset.
 */
export interface YieldSplitToken {
  readonly role: "pt" | "yt" | "lp";
  /** The registry yield contract factory. */
  readonly factory: string;
  readonly sy: string;
  readonly pt: string;
  readonly yt: string;
  /** Unix seconds. */
  readonly expiry: number;
  /** The SY's `assetInfo()` asset: what one PT redeems for at expiry. */
  readonly asset: string;
}

/** What the index reader answers of a wallet's views (IndexReader), keyed by chain and contract. */
export interface WalletToken extends TouchedToken {
  readonly chain_id: number;
  readonly token: string;
}

/** A lending market a wallet is in without a token of its own showing it (cToken borrows, Comet). */
export interface WalletLendingMarket {
  readonly chain_id: number;
  /** The cToken or the Comet. */
  readonly market: string;
  /** A Comet collateral asset; undefined for the market itself. */
  readonly asset: string | undefined;
}

/** A restaking deposit of a wallet: the registry StrategyManager, the strategy and its token. */
export interface WalletRestakeDeposit extends RestakeDeposit {
  readonly chain_id: number;
  readonly manager: string;
  readonly strategy: string;
}

/** A position NFT a wallet holds, with where it was minted when the index saw the mint. */
export interface WalletPositionNft extends WalletNft {
  readonly chain_id: number;
  /** The position manager (the NFT contract). */
  readonly manager: string;
  readonly token_id: bigint;
  /** Pool and range; undefined when the NFT was minted before the index's history. */
  readonly minted: NftRecord | undefined;
}

/** The block the index views stand at on a chain. */
export interface IndexCheckpoint {
  readonly number: number;
  readonly hash: string;
}
