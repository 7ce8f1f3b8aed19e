import type { Address } from "viem";
import { collectibleAbi, erc20Abi, multiTokenAbi, v3PoolAbi } from "./abis.js";
import { approveMax, approveThroughPermit2, v2AddLiquidity, v3Mint, v4Mint } from "./ammActions.js";
import { type ChainClient, send } from "./ChainClient.js";
import { approveAllAmms } from "./createMarkets.js";
import type { DeployedContracts } from "./deployContracts.js";
import { roleAddress } from "./devAccounts.js";
import { fullRangeLiquidity, fullRangeTicks, sqrtPriceX96FromAmounts } from "./poolMath.js";
import type { SeededPool } from "./SeededPool.js";
import { tokenDecimals } from "./tokenDecimals.js";
import { type TokenSymbol, units } from "./tokenSpecs.js";

/** Position NFTs the seed minted, by role, for tests and the manifest. */
export interface SeededPositions {
  readonly v3: readonly bigint[];
  readonly v4: readonly bigint[];
}

type Holdings = Partial<Record<TokenSymbol, number>>;

/** Whole-token amounts each funded role receives from the deployer. */
const HOLDINGS: ReadonlyArray<readonly [Parameters<typeof roleAddress>[0], Holdings]> = [
  [
    "whale",
    {
      WETH: 50,
      USDC: 250_000,
      USDT: 100_000,
      DAI: 50_000,
      WBTC: 2,
      UNI: 5_000,
      MKR: 10,
      SPAM: 1_000_000,
      NONAME: 1_000,
    },
  ],
  ["trader", { WETH: 600, USDC: 2_000_000, USDT: 300_000, WBTC: 10, UNI: 30_000 }],
  ["v2Lp", { WETH: 20, USDC: 60_000 }],
  ["v3Lp", { WETH: 20, USDC: 60_000 }],
  ["v4Lp", { WETH: 20, USDC: 60_000 }],
  ["activityA", { WETH: 20, USDC: 50_000, USDT: 10_000, DAI: 10_000, UNI: 1_000 }],
  ["activityB", { WETH: 20, USDC: 50_000, USDT: 10_000, DAI: 10_000, UNI: 1_000 }],
  ["activityC", { WETH: 20, USDC: 50_000, USDT: 10_000, DAI: 10_000, UNI: 1_000 }],
];

const fund = async (client: ChainClient, contracts: DeployedContracts, from: Address) => {
  for (const [role, holdings] of HOLDINGS) {
    for (const [symbol, amount] of Object.entries(holdings) as [TokenSymbol, number][]) {
      const value = units(amount, tokenDecimals(symbol));
      await send(client, {
        from,
        address: contracts.tokens[symbol],
        abi: erc20Abi,
        functionName: "transfer",
        args: [roleAddress(role), value],
      });
    }
  }
};

const mintCollectibles = async (client: ChainClient, contracts: DeployedContracts, from: Address) => {
  const owners = [roleAddress("activityA"), roleAddress("activityB"), roleAddress("whale")];
  for (const [index, owner] of owners.entries()) {
    await send(client, {
      from,
      address: contracts.collectible,
      abi: collectibleAbi,
      functionName: "mintRange",
      args: [owner, BigInt(index * 10 + 1), 10n],
    });
    for (const id of [1n, 2n, 3n]) {
      await send(client, {
        from,
        address: contracts.multiToken,
        abi: multiTokenAbi,
        functionName: "mint",
        args: [owner, id, 100n],
      });
    }
  }
};

const wethUsdc = (pools: readonly SeededPool[], protocol: SeededPool["protocol"]): SeededPool => {
  const pool = pools.find((p) => p.protocol === protocol && p.purpose === "weth_usdc_deep");
  if (pool === undefined) throw new Error(`no ${protocol} WETH/USDC pool`);
  return pool;
};

const lpAmounts = (pool: SeededPool, contracts: DeployedContracts) => {
  const wethIs0 = pool.token0 === contracts.tokens.WETH;
  const weth = units(10, 18);
  const usdc = units(30_000, 6);
  return { amount0: wethIs0 ? weth : usdc, amount1: wethIs0 ? usdc : weth };
};

const seedV3Positions = async (
  client: ChainClient,
  contracts: DeployedContracts,
  pools: readonly SeededPool[],
) => {
  const owner = roleAddress("v3Lp");
  const pool = wethUsdc(pools, "UniswapV3");
  const { amount0, amount1 } = lpAmounts(pool, contracts);
  const spacing = pool.tickSpacing ?? 10;
  const [, tick] = await client.publicClient.readContract({
    address: pool.address!,
    abi: v3PoolAbi,
    functionName: "slot0",
  });
  // About +-10 % around the opening price: a concentrated position next to a full-range one.
  const near = {
    tickLower: Math.floor((tick - 1000) / spacing) * spacing,
    tickUpper: Math.ceil((tick + 1000) / spacing) * spacing,
  };
  const ids: bigint[] = [];
  for (const ticks of [fullRangeTicks(spacing), near]) {
    const { tokenId } = await v3Mint(client, {
      from: owner,
      positionManager: contracts.uniswapV3.positionManager,
      token0: pool.token0,
      token1: pool.token1,
      fee: pool.fee,
      ...ticks,
      amount0,
      amount1,
      recipient: owner,
    });
    ids.push(tokenId);
  }
  return ids;
};

const seedV4Position = async (
  client: ChainClient,
  contracts: DeployedContracts,
  pools: readonly SeededPool[],
) => {
  const owner = roleAddress("v4Lp");
  const pool = wethUsdc(pools, "UniswapV4");
  const { amount0, amount1 } = lpAmounts(pool, contracts);
  const sqrtPriceX96 = sqrtPriceX96FromAmounts(amount0, amount1);
  const { tokenId: id } = await v4Mint(client, {
    from: owner,
    positionManager: contracts.uniswapV4.positionManager,
    key: pool.key!,
    ...fullRangeTicks(pool.tickSpacing ?? 60),
    liquidity: fullRangeLiquidity(sqrtPriceX96, amount0, amount1),
    amount0Max: amount0,
    amount1Max: amount1,
    owner,
  });
  return [id];
};

/**
 * Funds the demo wallets from the deployer and opens their positions: V2 LP tokens, two V3 NFTs (full range
 * and concentrated) and a V4 position on the WETH/USDC pools; NFTs and ERC-1155 items for activity; AMM
 * approvals for the trader and activity wallets. The `empty` wallet is never touched.
 */
export const seedWallets = async (
  client: ChainClient,
  contracts: DeployedContracts,
  pools: readonly SeededPool[],
): Promise<SeededPositions> => {
  const deployer = roleAddress("deployer");
  await fund(client, contracts, deployer);
  await mintCollectibles(client, contracts, deployer);
  for (const role of ["trader", "activityA", "activityB", "activityC"] as const)
    await approveAllAmms(client, contracts, roleAddress(role));
  const v2Lp = roleAddress("v2Lp");
  const v2 = wethUsdc(pools, "UniswapV2");
  for (const token of [v2.token0, v2.token1])
    await approveMax(client, v2Lp, token, contracts.uniswapV2.router);
  await v2AddLiquidity(client, {
    from: v2Lp,
    router: contracts.uniswapV2.router,
    tokenA: v2.token0,
    tokenB: v2.token1,
    ...(({ amount0, amount1 }) => ({ amountA: amount0, amountB: amount1 }))(lpAmounts(v2, contracts)),
    to: v2Lp,
  });
  for (const token of [contracts.tokens.WETH, contracts.tokens.USDC]) {
    await approveMax(client, roleAddress("v3Lp"), token, contracts.uniswapV3.positionManager);
    await approveThroughPermit2(client, roleAddress("v4Lp"), token, contracts.uniswapV4.positionManager);
  }
  return {
    v3: await seedV3Positions(client, contracts, pools),
    v4: await seedV4Position(client, contracts, pools),
  };
};
