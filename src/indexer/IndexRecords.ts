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
  readonly kind: "v2" | "v3" | "v4";
  /** Protocol name from the factory's configuration, e.g. `UniswapV3` or a fork's name. */
  readonly protocol: string;
  readonly factory: string;
  readonly token0: string;
  readonly token1: string;
  /** Hundredths of a basis point (v3, v4); v2 pools have a protocol-wide fee. */
  readonly fee: number | null;
  readonly tick_spacing: number | null;
  /** v4 hooks contract. */
  readonly hooks: string | null;
  readonly created_block: number;
}
