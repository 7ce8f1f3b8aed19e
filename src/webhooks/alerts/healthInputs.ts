import { toEventSelector } from "viem";
import type { ChainBlock } from "../../domain/ChainBlock.js";
import type { LendingToken } from "../../indexer/IndexRecords.js";
import type { LendingMarket } from "./lendingMarkets.js";

/**
 * Events that move a price some lending oracle may read: a Chainlink-style aggregator's new answer
 * (Aave's sources, Comet's price feeds, Chainlink-based comptroller oracles), an Aave oracle given a
 * new source or fallback, an Aave addresses provider given a new oracle (V2's and V3's event), a
 * comptroller oracle's posted price (Compound V2's and Venus's SimplePriceOracle `PricePosted`,
 * Compound's UniswapAnchoredView `PriceUpdated`), and AMM swaps and reserve syncs (oracles that read
 * pools). Nothing says which market reads which price, so any of them moves every market.
 */
const PRICE_TOPICS: ReadonlySet<string> = new Set(
  [
    "event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt)",
    "event AssetSourceUpdated(address indexed asset, address indexed source)",
    "event FallbackOracleUpdated(address indexed fallbackOracle)",
    "event PriceOracleUpdated(address indexed oldAddress, address indexed newAddress)",
    "event PriceOracleUpdated(address indexed newAddress)",
    "event PricePosted(address asset, uint256 previousPriceMantissa, uint256 requestedPriceMantissa, uint256 newPriceMantissa)",
    "event PriceUpdated(bytes32 indexed symbolHash, uint256 price)",
    "event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)",
    "event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)",
    "event Sync(uint112 reserve0, uint112 reserve1)",
  ].map((signature) => toEventSelector(signature)),
);

/** Whether the block has a price event (PRICE_TOPICS). */
export const hasPriceEvent = (block: ChainBlock): boolean =>
  block.logs.some((log) => PRICE_TOPICS.has(log.topics[0] ?? ""));

/** Which markets' inputs a block moved: all of them, or those in the set. */
export type MovedMarkets = "all" | ReadonlySet<string>;

/**
 * The markets whose every account's health factor `block` can have moved: all of them at a price
 * event; otherwise those with a log of their own: the Aave pool or its configurator (a supply,
 * borrow, repayment or liquidation moves the reserve's indexes; a new liquidation threshold moves
 * every account), the comptroller (a collateral factor, a new oracle) or one of its cTokens (an
 * `AccrueInterest` moves every borrow and the exchange rate), the Comet (any action accrues its
 * indexes; an upgrade may change its factors). A cToken is recognised by the index's record of it
 * (`lendingTokens`, cached there, answers and misses alike), asked only on a block without a price
 * event. Interest that accrues with time alone (Aave, Comet) is taken into account at the next
 * block that moves something: a health factor does not cross a threshold between two such blocks
 * by a block's interest.
 */
export const movedMarkets = async (
  block: ChainBlock,
  markets: ReadonlyArray<LendingMarket>,
  lendingTokens: (addresses: ReadonlyArray<string>) => Promise<ReadonlyArray<LendingToken | undefined>>,
): Promise<MovedMarkets> => {
  if (hasPriceEvent(block)) return "all";
  const marketOf = new Map<string, string>();
  for (const market of markets) {
    marketOf.set(market.address, market.address);
    for (const contract of market.related) marketOf.set(contract, market.address);
  }
  const moved = new Set<string>();
  const others = new Set<string>();
  for (const log of block.logs) {
    const market = marketOf.get(log.address);
    if (market === undefined) others.add(log.address);
    else moved.add(market);
  }
  const comptrollers = new Set(markets.filter((m) => m.design === "ctoken").map((m) => m.address));
  if (comptrollers.size === 0 || others.size === 0) return moved;
  const emitters = [...others];
  const records = await lendingTokens(emitters);
  for (const record of records)
    if (record?.kind === "ctoken" && comptrollers.has(record.market)) moved.add(record.market);
  return moved;
};
