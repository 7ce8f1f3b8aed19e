import type { Address, TransactionReceipt } from "viem";
import { v2Swap, v3Swap, v4Swap } from "../ammActions.js";
import { receiptOf } from "../ChainClient.js";
import { tokenDecimals } from "../tokenDecimals.js";
import { type TokenSymbol, units } from "../tokenSpecs.js";
import { type ActivityContext, contractAddress, nextPair, wethUsdcPool } from "./ActivityContext.js";

/** Alternates direction so activity does not walk the price away: even turns sell WETH, odd turns buy it. */
const direction = (ctx: ActivityContext) => {
  const sellWeth = ctx.turn % 2 === 0;
  const symbol: TokenSymbol = sellWeth ? "WETH" : "USDC";
  const amountIn = units(sellWeth ? 0.05 : 150, tokenDecimals(symbol));
  return { symbol, amountIn };
};

const tokenIn = (ctx: ActivityContext, symbol: TokenSymbol): Address =>
  ctx.chain.tokens[symbol]!.address as Address;

/** Swaps a little WETH/USDC on the Uniswap V2 pool. */
export const swapV2 = async (ctx: ActivityContext): Promise<TransactionReceipt[]> => {
  const { from } = nextPair(ctx);
  const { symbol, amountIn } = direction(ctx);
  const pool = wethUsdcPool(ctx, "v2");
  const input = tokenIn(ctx, symbol);
  const output = (input.toLowerCase() === pool.token0.toLowerCase() ? pool.token1 : pool.token0) as Address;
  const router = contractAddress(ctx, "uniswap_v2_router");
  return [
    await receiptOf(
      ctx.client,
      await v2Swap(ctx.client, { from, router, tokenIn: input, tokenOut: output, amountIn }),
    ),
  ];
};

/** Swaps a little WETH/USDC on the Uniswap V3 pool. */
export const swapV3 = async (ctx: ActivityContext): Promise<TransactionReceipt[]> => {
  const { from } = nextPair(ctx);
  const { symbol, amountIn } = direction(ctx);
  const pool = wethUsdcPool(ctx, "v3");
  const input = tokenIn(ctx, symbol);
  const output = (input.toLowerCase() === pool.token0.toLowerCase() ? pool.token1 : pool.token0) as Address;
  const router = contractAddress(ctx, "uniswap_v3_swap_router");
  const hash = await v3Swap(ctx.client, {
    from,
    router,
    tokenIn: input,
    tokenOut: output,
    fee: pool.fee,
    amountIn,
  });
  return [await receiptOf(ctx.client, hash)];
};

/** Swaps a little WETH/USDC on the Uniswap V4 pool (through v4-core's PoolSwapTest router). */
export const swapV4 = async (ctx: ActivityContext): Promise<TransactionReceipt[]> => {
  const { from } = nextPair(ctx);
  const { symbol, amountIn } = direction(ctx);
  const pool = wethUsdcPool(ctx, "v4");
  const input = tokenIn(ctx, symbol);
  const key = {
    currency0: pool.token0 as Address,
    currency1: pool.token1 as Address,
    fee: pool.fee,
    tickSpacing: pool.tick_spacing ?? 60,
    hooks: (pool.hooks ?? "0x0000000000000000000000000000000000000000") as Address,
  };
  const zeroForOne = input.toLowerCase() === pool.token0.toLowerCase();
  const poolSwapTest = contractAddress(ctx, "uniswap_v4_pool_swap_test");
  return [
    await receiptOf(ctx.client, await v4Swap(ctx.client, { from, poolSwapTest, key, zeroForOne, amountIn })),
  ];
};
