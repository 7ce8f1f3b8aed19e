import { type AbiEvent, encodeAbiParameters, encodeEventTopics, parseAbiItem } from "viem";
import type { TransactionLike } from "../../../src/decoding/activities/classifyTransaction.js";
import type { InternalTransferLike } from "../../../src/decoding/activities/collectMovements.js";
import type { LogLike } from "../../../src/decoding/events/DecodedEvent.js";

/** Real event declarations, as in the token standards and Uniswap interfaces. */
export const EVENTS = {
  erc20Transfer: "event Transfer(address indexed from, address indexed to, uint256 value)",
  erc20Approval: "event Approval(address indexed owner, address indexed spender, uint256 value)",
  erc721Transfer: "event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
  erc721Approval: "event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)",
  kittyTransfer: "event Transfer(address from, address to, uint256 tokenId)",
  approvalForAll: "event ApprovalForAll(address indexed owner, address indexed operator, bool approved)",
  transferSingle:
    "event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)",
  transferBatch:
    "event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)",
  deposit: "event Deposit(address indexed dst, uint256 wad)",
  withdrawal: "event Withdrawal(address indexed src, uint256 wad)",
  v2Swap:
    "event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)",
  v2Mint: "event Mint(address indexed sender, uint256 amount0, uint256 amount1)",
  v2Burn: "event Burn(address indexed sender, uint256 amount0, uint256 amount1, address indexed to)",
  v2Sync: "event Sync(uint112 reserve0, uint112 reserve1)",
  v2PairCreated:
    "event PairCreated(address indexed token0, address indexed token1, address pair, uint256 allPairsLength)",
  v3Swap:
    "event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)",
  v3Mint:
    "event Mint(address sender, address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)",
  v3Burn:
    "event Burn(address indexed owner, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount, uint256 amount0, uint256 amount1)",
  v3Collect:
    "event Collect(address indexed owner, address recipient, int24 indexed tickLower, int24 indexed tickUpper, uint128 amount0, uint128 amount1)",
  v3PoolCreated:
    "event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool)",
  v4Initialize:
    "event Initialize(bytes32 indexed id, address indexed currency0, address indexed currency1, uint24 fee, int24 tickSpacing, address hooks, uint160 sqrtPriceX96, int24 tick)",
  v4Swap:
    "event Swap(bytes32 indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee)",
  v4ModifyLiquidity:
    "event ModifyLiquidity(bytes32 indexed id, address indexed sender, int24 tickLower, int24 tickUpper, int256 liquidityDelta, bytes32 salt)",
} as const;

const addr = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

export const ZERO = addr(0);
export const ALICE = "0xa11ce00000000000000000000000000000000001";
export const BOB = "0xb0b0000000000000000000000000000000000002";
export const CAROL = "0xca401000000000000000000000000000000000a3";
export const TOKEN_A = "0xaaaa000000000000000000000000000000000001";
export const TOKEN_B = "0xbbbb000000000000000000000000000000000002";
export const TOKEN_C = "0xcccc000000000000000000000000000000000003";
export const NFT = "0x7f70000000000000000000000000000000000721";
export const MULTI = "0x1155000000000000000000000000000000001155";
export const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2";
export const ROUTER = "0x7a250d5630b4cf539739df2c5dacb4c659f2488d";
export const PAIR = addr(0x1111);
export const PAIR_2 = addr(0x2222);
export const POOL = addr(0x3333);
export const FACTORY = addr(0xfac);
export const MANAGER = addr(0x4444);
export const POOL_ID = `0x${"ab".repeat(32)}`;
export const TX_HASH = `0x${"11".repeat(32)}`;

/** Where a built log sits. */
export interface At {
  readonly logIndex?: number;
  readonly address?: string;
  readonly txIndex?: number;
  readonly txHash?: string;
}

/**
 * A log encoded by viem from a real event declaration: topics by `encodeEventTopics`, data by
 * `encodeAbiParameters` over the non-indexed inputs.
 */
export const encodeLog = (declaration: string, args: Record<string, unknown>, at: At = {}): LogLike => {
  const event = parseAbiItem(declaration) as AbiEvent;
  const indexedArgs = Object.fromEntries(
    event.inputs.filter((i) => i.indexed).map((i) => [i.name!, args[i.name!]]),
  );
  const topics = encodeEventTopics({ abi: [event], args: indexedArgs }) as Array<string>;
  const dataInputs = event.inputs.filter((i) => !i.indexed);
  const data = encodeAbiParameters(
    dataInputs,
    dataInputs.map((i) => args[i.name!]),
  );
  return {
    address: at.address ?? TOKEN_A,
    topics,
    data,
    log_index: at.logIndex ?? 0,
    transaction_index: at.txIndex ?? 0,
    transaction_hash: at.txHash ?? TX_HASH,
  };
};

/** A successful transaction from ALICE with no value and no calldata; override what the test needs. */
export const transaction = (overrides: Partial<TransactionLike> = {}): TransactionLike => ({
  hash: TX_HASH,
  index: 0,
  from: ALICE,
  to: ROUTER,
  value: "0",
  input: "0x",
  success: true,
  contract_address: null,
  ...overrides,
});

/** A native internal transfer. */
export const internal = (
  from: string,
  to: string,
  value: bigint,
): InternalTransferLike & { transaction_hash: string } => ({
  transaction_hash: TX_HASH,
  from,
  to,
  value: value.toString(),
});

export const CONTEXT = { chainId: 1, blockNumber: 100, blockTime: "2025-02-20T13:52:29+00:00" } as const;
