/** Asset standards an activity can move; `native` is the chain's own currency. */
export type AssetType = "native" | "erc20" | "erc721" | "erc1155";

/** Activity types, as in the compatible API (`transfer` stays reserved and is never produced). */
export type ActivityType = "send" | "receive" | "mint" | "burn" | "swap" | "approve" | "call";

/** The `token_address` (and swap leg address) of the native currency, as the compatible API spells it. */
export const NATIVE_TOKEN = "native";

/** Fields every activity carries: whose it is, where it happened, and the transaction around it. */
export interface ActivityBase {
  /**
   * Stable id for de-duplication: `<chain_id>:<tx_hash>:<position>:<type>:<wallet_address>`, where
   * position is `tx` (the transaction itself, its swap or call), `i<k>` (k-th internal transfer),
   * `l<log_index>` or `l<log_index>.<k>` (k-th item of an ERC-1155 batch).
   */
  readonly activity_id: string;
  /** The wallet this activity belongs to, lower case. */
  readonly wallet_address: string;
  readonly chain_id: number;
  readonly block_number: number;
  /** ISO 8601 with an explicit offset, e.g. `2025-02-20T13:52:29+00:00`. */
  readonly block_time: string;
  readonly tx_hash: string;
  /** Position of the transaction in its block. */
  readonly tx_index: number;
  /** Position in the block of the log behind it; absent for native, swap and call activities. */
  readonly log_index?: number;
  readonly tx_from: string;
  /** `null` for a contract creation. */
  readonly tx_to: string | null;
  /** Wei sent by the transaction, decimal. */
  readonly tx_value: string;
  /** Receipt status. Only a failed transaction's `call` activity has `false`. */
  readonly tx_success: boolean;
}

/**
 * A value movement seen from one side: `send`/`receive` between two non-zero addresses, `mint` from
 * the zero address, `burn` to it.
 */
export interface TransferActivity extends ActivityBase {
  readonly type: "send" | "receive" | "mint" | "burn";
  readonly asset_type: AssetType;
  /** Token contract, or `native`. */
  readonly token_address: string;
  readonly from: string;
  readonly to: string;
  /** Raw amount, decimal; `1` for an ERC-721 token. */
  readonly value: string;
  /** Token id, decimal (ERC-721 and ERC-1155 only). */
  readonly id?: string;
}

/** An approval set by the wallet (the owner), including revocations. */
export interface ApproveActivity extends ActivityBase {
  readonly type: "approve";
  /** `ApprovalForAll` is reported as `erc721` (ERC-1155 emits the identical log). */
  readonly asset_type: "erc20" | "erc721";
  readonly token_address: string;
  /** The owner, i.e. the wallet. */
  readonly from: string;
  /** Spender (ERC-20), approved address (ERC-721) or operator (`ApprovalForAll`). */
  readonly spender: string;
  /** ERC-20 allowance, raw decimal; `0` revokes. */
  readonly value?: string;
  /** ERC-721 token id, decimal. */
  readonly id?: string;
  /** `ApprovalForAll` only: false revokes the operator. */
  readonly approved?: boolean;
}

/** The transaction sender gave one fungible asset and received another through at least one AMM swap. */
export interface SwapActivity extends ActivityBase {
  readonly type: "swap";
  /** The wallet. */
  readonly from: string;
  /** Token given, or `native`. */
  readonly from_token_address: string;
  /** Net amount given, raw decimal. */
  readonly from_token_value: string;
  /** Token received, or `native`. */
  readonly to_token_address: string;
  /** Net amount received, raw decimal. */
  readonly to_token_value: string;
  /** V2 pair / V3 pool addresses and V4 pool ids swapped through, in log order. */
  readonly pools: ReadonlyArray<string>;
}

/** A contract interaction not covered by any other activity of the same wallet in the transaction. */
export interface CallActivity extends ActivityBase {
  readonly type: "call";
  /** `outgoing` for the sender, `incoming` for the called contract. */
  readonly call_type: "outgoing" | "incoming";
  readonly from: string;
  /** Called contract; the created contract for a deployment (null when the deployment failed). */
  readonly to: string | null;
  /** Wei attached to the call, decimal (nothing moved when `tx_success` is false). */
  readonly value: string;
  /** Raw calldata. */
  readonly data: string;
  /** First four bytes of `data` (0x + 8 hex), or null when data is shorter. */
  readonly function_selector: string | null;
}

/** One activity of one wallet, tagged by `type`. */
export type Activity = TransferActivity | ApproveActivity | SwapActivity | CallActivity;
