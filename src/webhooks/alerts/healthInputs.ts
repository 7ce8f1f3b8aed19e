import { toEventSelector } from "viem";
import { type ChainConfig, protocolsOf } from "../../chains/ChainsConfig.js";
import type { ChainBlock } from "../../domain/ChainBlock.js";

/**
 * Events that move a price some lending oracle may read: a Chainlink-style aggregator's new answer,
 * an Aave oracle given a new source or fallback, and AMM swaps and reserve syncs (oracles that read
 * pools). A block with none of them, no log of a lending pool and no transaction of a watched wallet
 * cannot have moved a watched health factor, and is not read.
 */
const PRICE_TOPICS: ReadonlySet<string> = new Set(
  [
    "event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt)",
    "event AssetSourceUpdated(address indexed asset, address indexed source)",
    "event FallbackOracleUpdated(address indexed fallbackOracle)",
    "event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)",
    "event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)",
    "event Sync(uint112 reserve0, uint112 reserve1)",
  ].map((signature) => toEventSelector(signature)),
);

/** The chain's Aave V2 and V3 pools: the markets whose accounts answer a health factor. */
export const aavePoolsOf = (chain: ChainConfig): ReadonlyArray<string> =>
  protocolsOf(chain)
    .filter((p) => p.kind === "aave_v2" || p.kind === "aave_v3")
    .map((p) => p.address);

/**
 * Whether `block` can have changed a health factor of `wallets` in `pools`: a price event, any log
 * of one of the pools (a supply, borrow, repayment or liquidation moves its indexes), or a
 * transaction sent by one of the wallets.
 */
export const healthInputsMoved = (
  block: ChainBlock,
  pools: ReadonlySet<string>,
  wallets: ReadonlySet<string>,
): boolean =>
  block.logs.some((log) => pools.has(log.address) || PRICE_TOPICS.has(log.topics[0] ?? "")) ||
  block.transactions.some((tx) => wallets.has(tx.from));
