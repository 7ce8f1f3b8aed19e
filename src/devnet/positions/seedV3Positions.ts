import type { Address } from "viem";
import { positionManagerV3Abi, v3FactoryAbi, v3PoolAbi } from "../abis.js";
import { approveMax, v3Mint, v3Swap } from "../ammActions.js";
import { type ChainClient, execute } from "../ChainClient.js";
import type { DeployedContracts } from "../deployContracts.js";
import { roleAddress, type WalletRole } from "../devAccounts.js";
import { sqrtPriceX96FromAmounts } from "../poolMath.js";
import { units } from "../tokenSpecs.js";
import { inPoolOrder, rangeAround } from "./positionMath.js";
import type { LiquidityPurpose, SeededLiquidityPosition } from "./SeededLiquidityPosition.js";
import { closeAndBurn, partiallyCollect, transferPosition } from "./v3PositionActions.js";

/** The positions' own Uniswap V3 WETH/USDC pool: 0.3 %, so it is not the deep 0.05 % market pool. */
const FEE = 3000;
const TICK_SPACING = 60;

/** Tick offsets from the opening tick, per purpose; the swaps move the price by about 1 %. */
const RANGES: ReadonlyArray<readonly [LiquidityPurpose, "liquidity" | "nftSender", number, number]> = [
  ["in_range", "liquidity", -1200, 1200],
  ["tokens_owed", "liquidity", -600, 600],
  ["below_range", "liquidity", 1800, 3000],
  ["above_range", "liquidity", -3000, -1800],
  ["transferred", "nftSender", -1800, 1800],
  ["burned", "nftSender", -1800, 1800],
];

/**
 * Mints a position of 2 WETH and 6,000 USDC (at most) in the positions' own Uniswap V3 pool, its range
 * `lowerOffset` to `upperOffset` ticks from the pool's current tick, owned by `holder` and paid by `payer`
 * (which must have approved the position manager).
 */
export const mintV3Position = async (
  client: ChainClient,
  contracts: DeployedContracts,
  p: {
    readonly pool: Address;
    readonly payer: Address;
    readonly holder: WalletRole;
    readonly lowerOffset: number;
    readonly upperOffset: number;
    readonly purpose: LiquidityPurpose;
  },
): Promise<SeededLiquidityPosition> => {
  const { WETH: weth, USDC: usdc } = contracts.tokens;
  const { positionManager } = contracts.uniswapV3;
  const [token0, token1] = BigInt(weth) < BigInt(usdc) ? [weth, usdc] : [usdc, weth];
  const [, tick] = await client.publicClient.readContract({
    address: p.pool,
    abi: v3PoolAbi,
    functionName: "slot0",
  });
  const range = rangeAround(tick, TICK_SPACING, p.lowerOffset, p.upperOffset);
  const { tokenId } = await v3Mint(client, {
    from: p.payer,
    positionManager,
    token0,
    token1,
    fee: FEE,
    ...range,
    ...inPoolOrder(token0, weth, units(2, 18), units(6_000, 6)),
    recipient: roleAddress(p.holder),
  });
  return {
    kind: "v3",
    protocol: "UniswapV3",
    wallet: p.holder,
    tokenId,
    pool: p.pool,
    positionManager,
    ...range,
    purpose: p.purpose,
  };
};

/**
 * Opens the V3 positions of docs/devnet.md in a WETH/USDC pool of their own (so the history's price walk
 * cannot push them across their ranges): in range, below and above range, one left with `tokensOwed` after
 * a partial collect, one transferred from `nftSender` to `nftReceiver` and one closed and burned. Swaps by
 * `swapper` before and after the partial collect earn the in-range positions fees in both tokens.
 */
export const seedV3Positions = async (
  client: ChainClient,
  contracts: DeployedContracts,
  deployer: Address,
): Promise<SeededLiquidityPosition[]> => {
  const { WETH: weth, USDC: usdc } = contracts.tokens;
  const { positionManager, swapRouter, factory } = contracts.uniswapV3;
  const [token0, token1] = BigInt(weth) < BigInt(usdc) ? [weth, usdc] : [usdc, weth];
  const opening = inPoolOrder(token0, weth, units(1, 18), units(3_000, 6));
  await execute(client, {
    from: deployer,
    address: positionManager,
    abi: positionManagerV3Abi,
    functionName: "createAndInitializePoolIfNecessary",
    args: [token0, token1, FEE, sqrtPriceX96FromAmounts(opening.amount0, opening.amount1)],
  });
  const pool = await client.publicClient.readContract({
    address: factory,
    abi: v3FactoryAbi,
    functionName: "getPool",
    args: [token0, token1, FEE],
  });
  for (const token of [weth, usdc]) {
    for (const role of ["liquidity", "nftSender"] as const)
      await approveMax(client, roleAddress(role), token, positionManager);
    await approveMax(client, roleAddress("swapper"), token, swapRouter);
  }

  const positions: SeededLiquidityPosition[] = [];
  for (const [purpose, role, lowerOffset, upperOffset] of RANGES)
    positions.push(
      await mintV3Position(client, contracts, {
        pool,
        payer: roleAddress(role),
        holder: role,
        lowerOffset,
        upperOffset,
        purpose,
      }),
    );

  const swapper = roleAddress("swapper");
  const roundTrip = async () => {
    await v3Swap(client, {
      from: swapper,
      router: swapRouter,
      tokenIn: weth,
      tokenOut: usdc,
      fee: FEE,
      amountIn: units(1, 18),
    });
    await v3Swap(client, {
      from: swapper,
      router: swapRouter,
      tokenIn: usdc,
      tokenOut: weth,
      fee: FEE,
      amountIn: units(3_000, 6),
    });
  };
  const target = (purpose: LiquidityPurpose) => {
    const position = positions.find((p) => p.purpose === purpose)!;
    return { client, positionManager, owner: roleAddress(position.wallet), tokenId: position.tokenId! };
  };
  for (let round = 0; round < 3; round++) await roundTrip();
  await partiallyCollect(target("tokens_owed"));
  await roundTrip();
  await transferPosition(target("transferred"), roleAddress("nftReceiver"));
  await closeAndBurn(target("burned"));
  return positions.map((p) => (p.purpose === "transferred" ? { ...p, wallet: "nftReceiver" } : p));
};
