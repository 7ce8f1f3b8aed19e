import type { AssetType } from "./Activity.js";

/** The zero address: `from` of a mint, `to` of a burn. */
export const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/** One value movement inside a transaction, before it is split into per-wallet activities. */
export interface Movement {
  /** Activity id position: `tx`, `i<k>`, `l<log_index>` or `l<log_index>.<k>`. */
  readonly position: string;
  /** Log behind it; undefined for native value (the transaction's own or an internal transfer). */
  readonly logIndex: number | undefined;
  readonly assetType: AssetType;
  /** Token contract, or `native`. */
  readonly token: string;
  /** The zero address for a mint. */
  readonly from: string;
  /** The zero address for a burn. */
  readonly to: string;
  /** Raw amount; 1 for ERC-721. Never 0 (empty movements are dropped). */
  readonly value: bigint;
  /** ERC-721 / ERC-1155 token id. */
  readonly id: bigint | undefined;
}
