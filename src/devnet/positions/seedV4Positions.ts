import { type Address, zeroAddress } from "viem";
import { positionManagerV4Abi, stateViewAbi } from "../abis.js";
import {
  approveMax,
  approveThroughPermit2,
  FAR_DEADLINE,
  v4Initialize,
  v4Mint,
  v4Swap,
} from "../ammActions.js";
import { type ChainClient, execute } from "../ChainClient.js";
import type { CompiledContracts } from "../compileContracts.js";
import type { DeployedContracts } from "../deployContracts.js";
import { roleAddress, type WalletRole } from "../devAccounts.js";
import { type PoolKey, sortPair, sqrtPriceX96FromAmounts, v4PoolId } from "../poolMath.js";
import { units } from "../tokenSpecs.js";
import { burnPositionData } from "../v4Actions.js";
import { inPoolOrder, liquidityForAmounts, rangeAround } from "./positionMath.js";
import type { LiquidityPurpose, SeededLiquidityPosition } from "./SeededLiquidityPosition.js";
import { placeSwapCounterHook } from "./swapCounterHook.js";

const FEE = 3000;
const TICK_SPACING = 60;

/** One of the positions' V4 pools, opened at 3,000 USDC per ETH. */
interface V4Pool {
  readonly key: PoolKey;
  /** The ETH side: address zero in the native pool, WETH in the hooked one. */
  readonly ethCurrency: Address;
  readonly sqrtPriceX96: bigint;
  /** Whether the ETH side is native ether, paid as the call's value. */
  readonly native: boolean;
}

const openPool = (weth: Address, usdc: Address, hooks: Address, native: boolean): V4Pool => {
  const [currency0, currency1] = native
    ? [zeroAddress, usdc]
    : sortPair({ address: weth }, { address: usdc }).map((side) => side.address);
  const key: PoolKey = {
    currency0: currency0!,
    currency1: currency1!,
    fee: FEE,
    tickSpacing: TICK_SPACING,
    hooks,
  };
  const ethSide = native ? zeroAddress : weth;
  const opening = inPoolOrder(key.currency0, ethSide, units(1, 18), units(3_000, 6));
  return {
    key,
    ethCurrency: ethSide,
    sqrtPriceX96: sqrtPriceX96FromAmounts(opening.amount0, opening.amount1),
    native,
  };
};

/** The positions' native-ETH/USDC pool (no hooks), once {@link seedV4Positions} has initialized it. */
export const nativeEthPool = (contracts: DeployedContracts): V4Pool =>
  openPool(contracts.tokens.WETH, contracts.tokens.USDC, zeroAddress, true);

/**
 * Mints a V4 position of `ether` ETH and 3,000 USDC per ETH in `pool`, `halfWidth` ticks either side of the
 * current tick, owned by `holder` and paid by `payer` (which must have approved the PositionManager through
 * Permit2).
 */
export const mintV4Position = async (
  client: ChainClient,
  contracts: DeployedContracts,
  p: {
    readonly pool: V4Pool;
    readonly payer: Address;
    readonly holder: WalletRole;
    readonly halfWidth: number;
    readonly ether: number;
    readonly purpose: LiquidityPurpose;
  },
): Promise<SeededLiquidityPosition> => {
  const { positionManager, stateView } = contracts.uniswapV4;
  const poolId = v4PoolId(p.pool.key);
  const [sqrtPriceX96, tick] = await client.publicClient.readContract({
    address: stateView,
    abi: stateViewAbi,
    functionName: "getSlot0",
    args: [poolId],
  });
  const range = rangeAround(tick, TICK_SPACING, -p.halfWidth, p.halfWidth);
  const { amount0, amount1 } = inPoolOrder(
    p.pool.key.currency0,
    p.pool.ethCurrency,
    units(p.ether, 18),
    units(3_000 * p.ether, 6),
  );
  const { tokenId } = await v4Mint(client, {
    from: p.payer,
    positionManager,
    key: p.pool.key,
    ...range,
    liquidity: liquidityForAmounts(sqrtPriceX96, range.tickLower, range.tickUpper, amount0, amount1),
    amount0Max: amount0,
    amount1Max: amount1,
    owner: roleAddress(p.holder),
    ...(p.pool.native ? { value: amount0 } : {}),
  });
  return {
    kind: "v4",
    protocol: "UniswapV4",
    wallet: p.holder,
    tokenId,
    pool: poolId,
    positionManager,
    ...range,
    purpose: p.purpose,
  };
};

/**
 * Opens the V4 positions of docs/devnet.md: `liquidity` holds one in a native-ETH/USDC pool (currency0 is
 * address zero) and one in a WETH/USDC pool whose hook counts swaps; `nftSender` opens a native-ETH
 * position and burns it after the swaps (liquidity removed, fees and principal taken, NFT burned).
 * `swapper` trades both ways through both pools, so the positions earn fees in both currencies.
 */
export const seedV4Positions = async (
  client: ChainClient,
  contracts: DeployedContracts,
  compiled: CompiledContracts,
  deployer: Address,
): Promise<{ positions: SeededLiquidityPosition[]; hook: Address }> => {
  const { poolManager, positionManager, poolSwapTest } = contracts.uniswapV4;
  const { WETH: weth, USDC: usdc } = contracts.tokens;
  const hook = await placeSwapCounterHook(client, compiled, deployer, poolManager);
  const nativePool = nativeEthPool(contracts);
  const hookedPool = openPool(weth, usdc, hook, false);
  for (const pool of [nativePool, hookedPool])
    await v4Initialize(client, deployer, poolManager, pool.key, pool.sqrtPriceX96);
  for (const token of [weth, usdc]) {
    for (const role of ["liquidity", "nftSender"] as const)
      await approveThroughPermit2(client, roleAddress(role), token, positionManager);
    await approveMax(client, roleAddress("swapper"), token, poolSwapTest);
  }

  const mints: ReadonlyArray<readonly [LiquidityPurpose, "liquidity" | "nftSender", V4Pool, number, number]> =
    [
      ["native_eth", "liquidity", nativePool, 1200, 2],
      ["hooked", "liquidity", hookedPool, 1200, 2],
      ["burned", "nftSender", nativePool, 1800, 1],
    ];
  const positions: SeededLiquidityPosition[] = [];
  for (const [purpose, role, pool, halfWidth, ether] of mints)
    positions.push(
      await mintV4Position(client, contracts, {
        pool,
        payer: roleAddress(role),
        holder: role,
        halfWidth,
        ether,
        purpose,
      }),
    );

  const swapper = roleAddress("swapper");
  for (let round = 0; round < 3; round++) {
    for (const pool of [nativePool, hookedPool]) {
      // Sell 1 ETH (or WETH) for USDC, then buy it back with 3,000 USDC: the price ends where it started.
      const ethIs0 = pool.key.currency0 === pool.ethCurrency;
      const swap = (sellEth: boolean, amountIn: bigint) =>
        v4Swap(client, {
          from: swapper,
          poolSwapTest,
          key: pool.key,
          zeroForOne: sellEth === ethIs0,
          amountIn,
          ...(pool.native && sellEth ? { value: amountIn } : {}),
        });
      await swap(true, units(1, 18));
      await swap(false, units(3_000, 6));
    }
  }

  const burned = positions.find((p) => p.purpose === "burned")!;
  await execute(client, {
    from: roleAddress("nftSender"),
    address: positionManager,
    abi: positionManagerV4Abi,
    functionName: "modifyLiquidities",
    args: [burnPositionData(nativePool.key, burned.tokenId!, roleAddress("nftSender")), FAR_DEADLINE],
  });
  return { positions, hook };
};
