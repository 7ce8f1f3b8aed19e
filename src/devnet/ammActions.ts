import {
  type Address,
  type Hash,
  maxUint48,
  maxUint160,
  maxUint256,
  parseEventLogs,
  type TransactionReceipt,
} from "viem";
import {
  erc20Abi,
  permit2Abi,
  poolManagerAbi,
  poolSwapTestAbi,
  positionManagerV3Abi,
  positionManagerV4Abi,
  swapRouterV3Abi,
  v2RouterAbi,
} from "./abis.js";
import { type ChainClient, execute, send } from "./ChainClient.js";
import { MAX_SQRT_PRICE, MIN_SQRT_PRICE, type PoolKey } from "./poolMath.js";
import { PERMIT2_ADDRESS } from "./protocolArtifacts.js";
import { type MintPositionParams, mintPositionData } from "./v4Actions.js";

/** Deadline far beyond any devnet timestamp: seeded blocks are time-travelled, so "now + 10 min" is wrong. */
export const FAR_DEADLINE = 2n ** 40n;

/** Approves `spender` for an unlimited amount of `token`. */
export const approveMax = (
  client: ChainClient,
  owner: Address,
  token: Address,
  spender: Address,
): Promise<Hash> =>
  send(client, {
    from: owner,
    address: token,
    abi: erc20Abi,
    functionName: "approve",
    args: [spender, maxUint256],
  });

/** Lets the V4 PositionManager pull `token` from `owner` through Permit2 (ERC-20 approval plus Permit2 allowance). */
export const approveThroughPermit2 = async (
  client: ChainClient,
  owner: Address,
  token: Address,
  spender: Address,
): Promise<void> => {
  await approveMax(client, owner, token, PERMIT2_ADDRESS);
  await send(client, {
    from: owner,
    address: PERMIT2_ADDRESS,
    abi: permit2Abi,
    functionName: "approve",
    args: [token, spender, maxUint160, Number(maxUint48)],
  });
};

/** Adds V2 liquidity through a router (creates the pair on first use); LP tokens go to `to`. */
export const v2AddLiquidity = (
  client: ChainClient,
  p: {
    from: Address;
    router: Address;
    tokenA: Address;
    tokenB: Address;
    amountA: bigint;
    amountB: bigint;
    to: Address;
  },
): Promise<Hash> =>
  send(client, {
    from: p.from,
    address: p.router,
    abi: v2RouterAbi,
    functionName: "addLiquidity",
    args: [p.tokenA, p.tokenB, p.amountA, p.amountB, 0n, 0n, p.to, FAR_DEADLINE],
  });

/** Mints a V3 position NFT and returns its token id and receipt. Tokens must be in pool order. */
export const v3Mint = async (
  client: ChainClient,
  p: {
    from: Address;
    positionManager: Address;
    token0: Address;
    token1: Address;
    fee: number;
    tickLower: number;
    tickUpper: number;
    amount0: bigint;
    amount1: bigint;
    recipient: Address;
  },
): Promise<{ tokenId: bigint; receipt: TransactionReceipt }> => {
  const receipt = await execute(client, {
    from: p.from,
    address: p.positionManager,
    abi: positionManagerV3Abi,
    functionName: "mint",
    args: [
      {
        token0: p.token0,
        token1: p.token1,
        fee: p.fee,
        tickLower: p.tickLower,
        tickUpper: p.tickUpper,
        amount0Desired: p.amount0,
        amount1Desired: p.amount1,
        amount0Min: 0n,
        amount1Min: 0n,
        recipient: p.recipient,
        deadline: FAR_DEADLINE,
      },
    ],
  });
  const [event] = parseEventLogs({
    abi: positionManagerV3Abi,
    eventName: "IncreaseLiquidity",
    logs: receipt.logs,
  });
  if (event === undefined) throw new Error("V3 mint emitted no IncreaseLiquidity");
  return { tokenId: event.args.tokenId, receipt };
};

/** Initializes a V4 pool in the PoolManager at `sqrtPriceX96`. */
export const v4Initialize = (
  client: ChainClient,
  from: Address,
  poolManager: Address,
  key: PoolKey,
  sqrtPriceX96: bigint,
) =>
  execute(client, {
    from,
    address: poolManager,
    abi: poolManagerAbi,
    functionName: "initialize",
    args: [key, sqrtPriceX96],
  });

/**
 * Mints a V4 position through the PositionManager and returns its token id and receipt. `value` pays a
 * native-ETH pool's currency0 in ether; what the mint does not use is swept back to the owner.
 */
export const v4Mint = async (
  client: ChainClient,
  p: MintPositionParams & { from: Address; positionManager: Address; value?: bigint },
): Promise<{ tokenId: bigint; receipt: TransactionReceipt }> => {
  const tokenId = await client.publicClient.readContract({
    address: p.positionManager,
    abi: positionManagerV4Abi,
    functionName: "nextTokenId",
  });
  const receipt = await execute(client, {
    from: p.from,
    address: p.positionManager,
    abi: positionManagerV4Abi,
    functionName: "modifyLiquidities",
    args: [mintPositionData(p, p.value !== undefined), FAR_DEADLINE],
    ...(p.value === undefined ? {} : { value: p.value }),
  });
  return { tokenId, receipt };
};

/** Exact-input swap on a V2 router. */
export const v2Swap = (
  client: ChainClient,
  p: { from: Address; router: Address; tokenIn: Address; tokenOut: Address; amountIn: bigint; gas?: bigint },
): Promise<Hash> =>
  send(client, {
    from: p.from,
    address: p.router,
    abi: v2RouterAbi,
    functionName: "swapExactTokensForTokens",
    args: [p.amountIn, 0n, [p.tokenIn, p.tokenOut], p.from, FAR_DEADLINE],
    ...(p.gas === undefined ? {} : { gas: p.gas }),
  });

/** Exact-input swap on a V3 SwapRouter. */
export const v3Swap = (
  client: ChainClient,
  p: {
    from: Address;
    router: Address;
    tokenIn: Address;
    tokenOut: Address;
    fee: number;
    amountIn: bigint;
    gas?: bigint;
  },
): Promise<Hash> =>
  send(client, {
    from: p.from,
    address: p.router,
    abi: swapRouterV3Abi,
    functionName: "exactInputSingle",
    args: [
      {
        tokenIn: p.tokenIn,
        tokenOut: p.tokenOut,
        fee: p.fee,
        recipient: p.from,
        deadline: FAR_DEADLINE,
        amountIn: p.amountIn,
        amountOutMinimum: 0n,
        sqrtPriceLimitX96: 0n,
      },
    ],
    ...(p.gas === undefined ? {} : { gas: p.gas }),
  });

/** Exact-input swap on a V4 pool through v4-core's PoolSwapTest router. */
export const v4Swap = (
  client: ChainClient,
  p: {
    from: Address;
    poolSwapTest: Address;
    key: PoolKey;
    zeroForOne: boolean;
    amountIn: bigint;
    gas?: bigint;
    /** Ether sent along when the input currency is native ETH (PoolSwapTest refunds what it does not use). */
    value?: bigint;
  },
): Promise<Hash> =>
  send(client, {
    from: p.from,
    address: p.poolSwapTest,
    abi: poolSwapTestAbi,
    functionName: "swap",
    args: [
      p.key,
      {
        zeroForOne: p.zeroForOne,
        amountSpecified: -p.amountIn,
        sqrtPriceLimitX96: p.zeroForOne ? MIN_SQRT_PRICE + 1n : MAX_SQRT_PRICE - 1n,
      },
      { takeClaims: false, settleUsingBurn: false },
      "0x",
    ],
    ...(p.gas === undefined ? {} : { gas: p.gas }),
    ...(p.value === undefined ? {} : { value: p.value }),
  });
