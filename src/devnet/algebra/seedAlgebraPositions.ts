import { type Address, parseEventLogs, zeroAddress } from "viem";
import { approveMax, FAR_DEADLINE } from "../ammActions.js";
import { type ChainClient, execute, send } from "../ChainClient.js";
import type { DeployedContracts } from "../deployContracts.js";
import { roleAddress, type WalletRole } from "../devAccounts.js";
import { fullRangeTicks, sortPair, sqrtPriceX96FromAmounts } from "../poolMath.js";
import { inPoolOrder, rangeAround } from "../positions/positionMath.js";
import type { LiquidityPurpose, SeededLiquidityPosition } from "../positions/SeededLiquidityPosition.js";
import { units } from "../tokenSpecs.js";
import {
  algebraFactoryAbi,
  algebraPoolAbi,
  algebraPositionManagerAbi,
  algebraSwapRouterAbi,
} from "./algebraAbis.js";
import { type AlgebraDeployment, deployAlgebra } from "./deployAlgebra.js";

/**
 * Mints an Algebra position of 2 WETH and 6,000 USDC (at most) in the WETH/USDC `pool` over `range`, owned
 * through `positionManager`, owned by `holder` and paid by `payer` (which must have approved it).
 */
export const mintAlgebraPosition = async (
  client: ChainClient,
  contracts: DeployedContracts,
  positionManager: Address,
  p: {
    readonly pool: Address;
    readonly range: { readonly tickLower: number; readonly tickUpper: number };
    readonly payer: Address;
    readonly holder: WalletRole;
    readonly purpose: LiquidityPurpose;
  },
): Promise<SeededLiquidityPosition> => {
  const { WETH: weth, USDC: usdc } = contracts.tokens;
  const [token0, token1] = sortPair({ address: weth }, { address: usdc }).map((side) => side.address) as [
    Address,
    Address,
  ];
  const { amount0, amount1 } = inPoolOrder(token0, weth, units(2, 18), units(6_000, 6));
  const recipient = roleAddress(p.holder);
  const receipt = await execute(client, {
    from: p.payer,
    address: positionManager,
    abi: algebraPositionManagerAbi,
    functionName: "mint",
    args: [
      {
        token0,
        token1,
        deployer: zeroAddress,
        ...p.range,
        amount0Desired: amount0,
        amount1Desired: amount1,
        amount0Min: 0n,
        amount1Min: 0n,
        recipient,
        deadline: FAR_DEADLINE,
      },
    ],
  });
  const [event] = parseEventLogs({
    abi: algebraPositionManagerAbi,
    eventName: "IncreaseLiquidity",
    logs: receipt.logs,
  });
  if (event === undefined) throw new Error("Algebra mint emitted no IncreaseLiquidity");
  return {
    kind: "algebra",
    protocol: "AlgebraIntegral",
    wallet: p.holder,
    tokenId: event.args.tokenId,
    pool: p.pool,
    positionManager,
    ...p.range,
    purpose: p.purpose,
  };
};

/**
 * Deploys Algebra Integral and opens its positions: a WETH/USDC pool created through the position manager
 * (the factory's own pools have deployer address zero), a concentrated in-range position and a full-range
 * one for `liquidity`, and round-trip swaps by `swapper` through Algebra's SwapRouter so both earn fees.
 */
export const seedAlgebraPositions = async (
  client: ChainClient,
  contracts: DeployedContracts,
  deployer: Address,
): Promise<{ positions: SeededLiquidityPosition[]; deployment: AlgebraDeployment }> => {
  const { WETH: weth, USDC: usdc } = contracts.tokens;
  const deployment = await deployAlgebra(client, deployer, weth);
  const { positionManager, swapRouter, factory } = deployment;
  const [token0, token1] = sortPair({ address: weth }, { address: usdc }).map((side) => side.address) as [
    Address,
    Address,
  ];
  const opening = inPoolOrder(token0, weth, units(1, 18), units(3_000, 6));
  await execute(client, {
    from: deployer,
    address: positionManager,
    abi: algebraPositionManagerAbi,
    functionName: "createAndInitializePoolIfNecessary",
    args: [token0, token1, zeroAddress, sqrtPriceX96FromAmounts(opening.amount0, opening.amount1), "0x"],
  });
  const pool = await client.publicClient.readContract({
    address: factory,
    abi: algebraFactoryAbi,
    functionName: "poolByPair",
    args: [token0, token1],
  });
  const read = { address: pool, abi: algebraPoolAbi } as const;
  const [[, tick], spacing] = await Promise.all([
    client.publicClient.readContract({ ...read, functionName: "globalState" }),
    client.publicClient.readContract({ ...read, functionName: "tickSpacing" }),
  ]);
  const owner = roleAddress("liquidity");
  const swapper = roleAddress("swapper");
  for (const token of [weth, usdc]) {
    await approveMax(client, owner, token, positionManager);
    await approveMax(client, swapper, token, swapRouter);
  }

  const positions: SeededLiquidityPosition[] = [];
  for (const range of [rangeAround(tick, spacing, -1200, 1200), fullRangeTicks(spacing)])
    positions.push(
      await mintAlgebraPosition(client, contracts, positionManager, {
        pool,
        range,
        payer: owner,
        holder: "liquidity",
        purpose: "algebra",
      }),
    );

  const swap = (tokenIn: Address, tokenOut: Address, amountIn: bigint) =>
    send(client, {
      from: swapper,
      address: swapRouter,
      abi: algebraSwapRouterAbi,
      functionName: "exactInputSingle",
      args: [
        {
          tokenIn,
          tokenOut,
          deployer: zeroAddress,
          recipient: swapper,
          deadline: FAR_DEADLINE,
          amountIn,
          amountOutMinimum: 0n,
          limitSqrtPrice: 0n,
        },
      ],
    });
  for (let round = 0; round < 3; round++) {
    await swap(weth, usdc, units(1, 18));
    await swap(usdc, weth, units(3_000, 6));
  }
  return { positions, deployment };
};
