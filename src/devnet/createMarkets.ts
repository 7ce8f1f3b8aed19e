import { type Address, zeroAddress } from "viem";
import { positionManagerV3Abi, v2FactoryAbi, v3FactoryAbi } from "./abis.js";
import {
  approveMax,
  approveThroughPermit2,
  v2AddLiquidity,
  v3Mint,
  v4Initialize,
  v4Mint,
} from "./ammActions.js";
import { type ChainClient, execute } from "./ChainClient.js";
import type { DeployedContracts } from "./deployContracts.js";
import { MARKETS, type MarketSpec, V4_TICK_SPACING } from "./marketSpecs.js";
import {
  fullRangeLiquidity,
  fullRangeTicks,
  type PoolKey,
  sortPair,
  sqrtPriceX96FromAmounts,
  v4PoolId,
} from "./poolMath.js";
import type { SeededPool } from "./SeededPool.js";
import { tokenDecimals } from "./tokenDecimals.js";
import { type TokenSymbol, units } from "./tokenSpecs.js";

/** Tick spacing Uniswap V3 enables for each fee tier. */
export const V3_TICK_SPACING: Readonly<Record<number, number>> = { 100: 1, 500: 10, 3000: 60, 10000: 200 };

interface Side {
  readonly symbol: TokenSymbol;
  readonly address: Address;
  readonly amount: bigint;
}

const sides = (contracts: DeployedContracts, spec: MarketSpec): readonly [Side, Side] =>
  sortPair(
    {
      symbol: spec.tokenA,
      address: contracts.tokens[spec.tokenA],
      amount: units(spec.amountA, tokenDecimals(spec.tokenA)),
    },
    {
      symbol: spec.tokenB,
      address: contracts.tokens[spec.tokenB],
      amount: units(spec.amountB, tokenDecimals(spec.tokenB)),
    },
  );

/** Lets `owner` trade and provide liquidity with every token on every AMM of the chain. */
export const approveAllAmms = async (client: ChainClient, contracts: DeployedContracts, owner: Address) => {
  const spenders = [
    contracts.uniswapV2.router,
    contracts.sushiswapV2.router,
    contracts.uniswapV3.positionManager,
    contracts.uniswapV3.swapRouter,
    contracts.sushiswapV3.positionManager,
    contracts.sushiswapV3.swapRouter,
    contracts.uniswapV4.poolSwapTest,
  ];
  for (const token of Object.values(contracts.tokens)) {
    for (const spender of spenders) await approveMax(client, owner, token, spender);
    await approveThroughPermit2(client, owner, token, contracts.uniswapV4.positionManager);
  }
};

const base = (spec: MarketSpec, token0: Side, token1: Side) => ({
  protocol: spec.protocol,
  token0: token0.address,
  token1: token1.address,
  symbol0: token0.symbol,
  symbol1: token1.symbol,
  fee: spec.fee,
  purpose: spec.purpose,
});

const createV2 = async (
  client: ChainClient,
  contracts: DeployedContracts,
  spec: MarketSpec,
  from: Address,
) => {
  const [token0, token1] = sides(contracts, spec);
  const v2 = spec.protocol === "SushiSwapV2" ? contracts.sushiswapV2 : contracts.uniswapV2;
  await v2AddLiquidity(client, {
    from,
    router: v2.router,
    tokenA: token0.address,
    tokenB: token1.address,
    amountA: token0.amount,
    amountB: token1.amount,
    to: from,
  });
  const address = await client.publicClient.readContract({
    address: v2.factory,
    abi: v2FactoryAbi,
    functionName: "getPair",
    args: [token0.address, token1.address],
  });
  return {
    ...base(spec, token0, token1),
    kind: "v2",
    address,
    poolId: null,
    key: null,
    tickSpacing: null,
  } satisfies SeededPool;
};

const createV3 = async (
  client: ChainClient,
  contracts: DeployedContracts,
  spec: MarketSpec,
  from: Address,
) => {
  const [token0, token1] = sides(contracts, spec);
  const v3 = spec.protocol === "SushiSwapV3" ? contracts.sushiswapV3 : contracts.uniswapV3;
  const tickSpacing = V3_TICK_SPACING[spec.fee] ?? 60;
  const sqrtPriceX96 = sqrtPriceX96FromAmounts(token0.amount, token1.amount);
  await execute(client, {
    from,
    address: v3.positionManager,
    abi: positionManagerV3Abi,
    functionName: "createAndInitializePoolIfNecessary",
    args: [token0.address, token1.address, spec.fee, sqrtPriceX96],
  });
  await v3Mint(client, {
    from,
    positionManager: v3.positionManager,
    token0: token0.address,
    token1: token1.address,
    fee: spec.fee,
    ...fullRangeTicks(tickSpacing),
    amount0: token0.amount,
    amount1: token1.amount,
    recipient: from,
  });
  const address = await client.publicClient.readContract({
    address: v3.factory,
    abi: v3FactoryAbi,
    functionName: "getPool",
    args: [token0.address, token1.address, spec.fee],
  });
  return {
    ...base(spec, token0, token1),
    kind: "v3",
    address,
    poolId: null,
    key: null,
    tickSpacing,
  } satisfies SeededPool;
};

const createV4 = async (
  client: ChainClient,
  contracts: DeployedContracts,
  spec: MarketSpec,
  from: Address,
) => {
  const [token0, token1] = sides(contracts, spec);
  const key: PoolKey = {
    currency0: token0.address,
    currency1: token1.address,
    fee: spec.fee,
    tickSpacing: V4_TICK_SPACING,
    hooks: zeroAddress,
  };
  const sqrtPriceX96 = sqrtPriceX96FromAmounts(token0.amount, token1.amount);
  await v4Initialize(client, from, contracts.uniswapV4.poolManager, key, sqrtPriceX96);
  await v4Mint(client, {
    from,
    positionManager: contracts.uniswapV4.positionManager,
    key,
    ...fullRangeTicks(V4_TICK_SPACING),
    liquidity: fullRangeLiquidity(sqrtPriceX96, token0.amount, token1.amount),
    amount0Max: token0.amount,
    amount1Max: token1.amount,
    owner: from,
  });
  return {
    ...base(spec, token0, token1),
    kind: "v4",
    address: null,
    poolId: v4PoolId(key),
    key,
    tickSpacing: V4_TICK_SPACING,
  } satisfies SeededPool;
};

/** Creates every pool of {@link MARKETS} with `from`'s tokens (approvals must be in place). */
export const createMarkets = async (
  client: ChainClient,
  contracts: DeployedContracts,
  from: Address,
): Promise<readonly SeededPool[]> => {
  const pools: SeededPool[] = [];
  for (const spec of MARKETS) {
    if (spec.protocol === "UniswapV2" || spec.protocol === "SushiSwapV2")
      pools.push(await createV2(client, contracts, spec, from));
    else if (spec.protocol === "UniswapV4") pools.push(await createV4(client, contracts, spec, from));
    else pools.push(await createV3(client, contracts, spec, from));
  }
  return pools;
};
