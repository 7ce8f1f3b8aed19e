import type { EventBase } from "./EventBase.js";

/** ERC-20 `Transfer(address indexed from, address indexed to, uint256 value)`: three topics. */
export interface Erc20Transfer extends EventBase {
  readonly kind: "erc20.transfer";
  readonly from: string;
  readonly to: string;
  /** Raw token amount (smallest unit). */
  readonly value: bigint;
}

/** ERC-20 `Approval(address indexed owner, address indexed spender, uint256 value)`: three topics. */
export interface Erc20Approval extends EventBase {
  readonly kind: "erc20.approval";
  readonly owner: string;
  readonly spender: string;
  /** New allowance, raw amount; 0 is a revocation. */
  readonly value: bigint;
}

/**
 * ERC-721 `Transfer(address indexed from, address indexed to, uint256 indexed tokenId)`: four topics,
 * or one topic with all three in data (pre-standard contracts such as CryptoKitties).
 */
export interface Erc721Transfer extends EventBase {
  readonly kind: "erc721.transfer";
  readonly from: string;
  readonly to: string;
  readonly tokenId: bigint;
}

/** ERC-721 `Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)`. */
export interface Erc721Approval extends EventBase {
  readonly kind: "erc721.approval";
  readonly owner: string;
  /** Approved address; the zero address clears the approval. */
  readonly approved: string;
  readonly tokenId: bigint;
}

/**
 * `ApprovalForAll(address indexed owner, address indexed operator, bool approved)`. ERC-721 and ERC-1155
 * emit the identical log, so the standard cannot be told from the log alone.
 */
export interface ApprovalForAll extends EventBase {
  readonly kind: "erc721.approvalForAll";
  readonly owner: string;
  readonly operator: string;
  /** False revokes the operator. */
  readonly approved: boolean;
}

/**
 * ERC-1155 `TransferSingle(address indexed operator, address indexed from, address indexed to,
 * uint256 id, uint256 value)`.
 */
export interface Erc1155TransferSingle extends EventBase {
  readonly kind: "erc1155.transferSingle";
  readonly operator: string;
  readonly from: string;
  readonly to: string;
  readonly id: bigint;
  readonly value: bigint;
}

/**
 * ERC-1155 `TransferBatch(address indexed operator, address indexed from, address indexed to,
 * uint256[] ids, uint256[] values)`.
 */
export interface Erc1155TransferBatch extends EventBase {
  readonly kind: "erc1155.transferBatch";
  readonly operator: string;
  readonly from: string;
  readonly to: string;
  /** Token ids; same length as `values` (a log where they differ is malformed). */
  readonly ids: ReadonlyArray<bigint>;
  readonly values: ReadonlyArray<bigint>;
}

/** WETH9 `Deposit(address indexed dst, uint256 wad)`: native wrapped into the token. */
export interface WethDeposit extends EventBase {
  readonly kind: "weth.deposit";
  readonly dst: string;
  /** Wei wrapped. */
  readonly wad: bigint;
}

/** WETH9 `Withdrawal(address indexed src, uint256 wad)`: the token unwrapped back to native. */
export interface WethWithdrawal extends EventBase {
  readonly kind: "weth.withdrawal";
  readonly src: string;
  /** Wei unwrapped. */
  readonly wad: bigint;
}

/** Token-standard events: fungible, non-fungible, multi-token and wrapped-native. */
export type TokenEvent =
  | Erc20Transfer
  | Erc20Approval
  | Erc721Transfer
  | Erc721Approval
  | ApprovalForAll
  | Erc1155TransferSingle
  | Erc1155TransferBatch
  | WethDeposit
  | WethWithdrawal;
