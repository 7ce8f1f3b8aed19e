import { type Address, encodeFunctionData, maxUint128, type TransactionReceipt } from "viem";
import { erc20Abi, positionManagerV3Abi, positionManagerV4Abi, v2RouterAbi } from "../abis.js";
import { FAR_DEADLINE, v2AddLiquidity, v3Mint, v4Mint } from "../ammActions.js";
import { execute, receiptOf } from "../ChainClient.js";
import type { ManifestPool } from "../DevnetManifest.js";
import { fullRangeLiquidity, fullRangeTicks, type PoolKey, sqrtPriceX96FromAmounts } from "../poolMath.js";
import { units } from "../tokenSpecs.js";
import { burnPositionData } from "../v4Actions.js";
import {
  type ActivityContext,
  contractAddress,
  nextPair,
  tokenAddress,
  wethUsdcPool,
} from "./ActivityContext.js";

/** 0.1 WETH and 300 USDC, in the pool's token order. */
const smallAmounts = (ctx: ActivityContext, pool: ManifestPool) => {
  const wethIs0 = pool.token0.toLowerCase() === tokenAddress(ctx, "WETH").toLowerCase();
  const weth = units(0.1, 18);
  const usdc = units(300, 6);
  return { amount0: wethIs0 ? weth : usdc, amount1: wethIs0 ? usdc : weth };
};

const poolKey = (pool: ManifestPool): PoolKey => ({
  currency0: pool.token0 as Address,
  currency1: pool.token1 as Address,
  fee: pool.fee,
  tickSpacing: pool.tick_spacing ?? 60,
  hooks: (pool.hooks ?? "0x0000000000000000000000000000000000000000") as Address,
});

/** Adds V2 WETH/USDC liquidity (LP tokens minted to the sender). */
export const mintV2 = async (ctx: ActivityContext): Promise<TransactionReceipt[]> => {
  const { from } = nextPair(ctx);
  const pool = wethUsdcPool(ctx, "v2");
  const { amount0, amount1 } = smallAmounts(ctx, pool);
  const router = contractAddress(ctx, "uniswap_v2_router");
  const hash = await v2AddLiquidity(ctx.client, {
    from,
    router,
    tokenA: pool.token0 as Address,
    tokenB: pool.token1 as Address,
    amountA: amount0,
    amountB: amount1,
    to: from,
  });
  ctx.v2Providers.add(from);
  return [await receiptOf(ctx.client, hash)];
};

/** Removes all V2 liquidity an earlier mint of this run added (approving the router for the LP token first). */
export const burnV2 = async (ctx: ActivityContext): Promise<TransactionReceipt[]> => {
  const [from] = ctx.v2Providers;
  if (from === undefined) return mintV2(ctx);
  ctx.v2Providers.delete(from);
  const pool = wethUsdcPool(ctx, "v2");
  const pair = pool.address as Address;
  const router = contractAddress(ctx, "uniswap_v2_router");
  const liquidity =
    (await ctx.client.publicClient.readContract({
      address: pair,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [from],
    })) / 2n;
  const approve = await execute(ctx.client, {
    from,
    address: pair,
    abi: erc20Abi,
    functionName: "approve",
    args: [router, liquidity],
  });
  const remove = await execute(ctx.client, {
    from,
    address: router,
    abi: v2RouterAbi,
    functionName: "removeLiquidity",
    args: [pool.token0 as Address, pool.token1 as Address, liquidity, 0n, 0n, from, FAR_DEADLINE],
  });
  return [approve, remove];
};

/** Mints a full-range V3 WETH/USDC position NFT. */
export const mintV3 = async (ctx: ActivityContext): Promise<TransactionReceipt[]> => {
  const { from } = nextPair(ctx);
  const pool = wethUsdcPool(ctx, "v3");
  const positionManager = contractAddress(ctx, "uniswap_v3_position_manager");
  const { tokenId, receipt } = await v3Mint(ctx.client, {
    from,
    positionManager,
    token0: pool.token0 as Address,
    token1: pool.token1 as Address,
    fee: pool.fee,
    ...fullRangeTicks(pool.tick_spacing ?? 10),
    ...smallAmounts(ctx, pool),
    recipient: from,
  });
  ctx.openV3.set(tokenId, from);
  return [receipt];
};

/** Closes a V3 position this run opened: decreaseLiquidity, collect and burn in one multicall. */
export const burnV3 = async (ctx: ActivityContext): Promise<TransactionReceipt[]> => {
  const [entry] = ctx.openV3;
  if (entry === undefined) return mintV3(ctx);
  const [tokenId, owner] = entry;
  ctx.openV3.delete(tokenId);
  const address = contractAddress(ctx, "uniswap_v3_position_manager");
  const position = await ctx.client.publicClient.readContract({
    address,
    abi: positionManagerV3Abi,
    functionName: "positions",
    args: [tokenId],
  });
  const calls = [
    encodeFunctionData({
      abi: positionManagerV3Abi,
      functionName: "decreaseLiquidity",
      args: [{ tokenId, liquidity: position[7], amount0Min: 0n, amount1Min: 0n, deadline: FAR_DEADLINE }],
    }),
    encodeFunctionData({
      abi: positionManagerV3Abi,
      functionName: "collect",
      args: [{ tokenId, recipient: owner, amount0Max: maxUint128, amount1Max: maxUint128 }],
    }),
    encodeFunctionData({ abi: positionManagerV3Abi, functionName: "burn", args: [tokenId] }),
  ];
  return [
    await execute(ctx.client, {
      from: owner,
      address,
      abi: positionManagerV3Abi,
      functionName: "multicall",
      args: [calls],
    }),
  ];
};

/** Mints a full-range V4 WETH/USDC position through the PositionManager (tokens pulled via Permit2). */
export const mintV4 = async (ctx: ActivityContext): Promise<TransactionReceipt[]> => {
  const { from } = nextPair(ctx);
  const pool = wethUsdcPool(ctx, "v4");
  const { amount0, amount1 } = smallAmounts(ctx, pool);
  const positionManager = contractAddress(ctx, "uniswap_v4_position_manager");
  const liquidity = fullRangeLiquidity(sqrtPriceX96FromAmounts(amount0, amount1), amount0, amount1) / 2n;
  const { tokenId, receipt } = await v4Mint(ctx.client, {
    from,
    positionManager,
    key: poolKey(pool),
    ...fullRangeTicks(pool.tick_spacing ?? 60),
    liquidity,
    amount0Max: amount0,
    amount1Max: amount1,
    owner: from,
  });
  ctx.openV4.set(tokenId, from);
  return [receipt];
};

/** Burns a V4 position this run opened, taking both tokens back to its owner. */
export const burnV4 = async (ctx: ActivityContext): Promise<TransactionReceipt[]> => {
  const [entry] = ctx.openV4;
  if (entry === undefined) return mintV4(ctx);
  const [tokenId, owner] = entry;
  ctx.openV4.delete(tokenId);
  const pool = wethUsdcPool(ctx, "v4");
  const address = contractAddress(ctx, "uniswap_v4_position_manager");
  return [
    await execute(ctx.client, {
      from: owner,
      address,
      abi: positionManagerV4Abi,
      functionName: "modifyLiquidities",
      args: [burnPositionData(poolKey(pool), tokenId, owner), FAR_DEADLINE],
    }),
  ];
};
