import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  maxUint128,
  type PublicClient,
  parseAbi,
} from "viem";
import { compileSolidity } from "../../src/lib/compileSolidity.js";

/**
 * Independent answers to "what does this position hold and what has it earned", for tests: the
 * position managers' own `decreaseLiquidity` and `collect` simulated by eth_call from the owner
 * (exactly what closing the position would pay), and Uniswap V4's own SqrtPriceMath for V4
 * positions read through StateView.
 */

const managerAbi = parseAbi([
  "struct DecreaseLiquidityParams { uint256 tokenId; uint128 liquidity; uint256 amount0Min; uint256 amount1Min; uint256 deadline; }",
  "struct CollectParams { uint256 tokenId; address recipient; uint128 amount0Max; uint128 amount1Max; }",
  "function decreaseLiquidity(DecreaseLiquidityParams params) payable returns (uint256 amount0, uint256 amount1)",
  "function collect(CollectParams params) payable returns (uint256 amount0, uint256 amount1)",
]);

const FAR_DEADLINE = 2n ** 40n;

/** What burning all of an NFT's liquidity would pay, simulated at `block` from its owner (V3 and Algebra managers). */
export const simulateDecrease = async (
  client: PublicClient,
  manager: Address,
  owner: Address,
  tokenId: bigint,
  liquidity: bigint,
  blockNumber: bigint,
) => {
  if (liquidity === 0n) return { amount0: 0n, amount1: 0n };
  const { result } = await client.simulateContract({
    address: manager,
    abi: managerAbi,
    functionName: "decreaseLiquidity",
    args: [{ tokenId, liquidity, amount0Min: 0n, amount1Min: 0n, deadline: FAR_DEADLINE }],
    account: owner,
    blockNumber,
  });
  return { amount0: result[0], amount1: result[1] };
};

/** What `collect` would pay the owner now: tokens owed plus fees earned (V3 and Algebra managers). */
export const simulateCollect = async (
  client: PublicClient,
  manager: Address,
  owner: Address,
  tokenId: bigint,
  blockNumber: bigint,
) => {
  const { result } = await client.simulateContract({
    address: manager,
    abi: managerAbi,
    functionName: "collect",
    args: [{ tokenId, recipient: owner, amount0Max: maxUint128, amount1Max: maxUint128 }],
    account: owner,
    blockNumber,
  });
  return { amount0: result[0], amount1: result[1] };
};

const PROBE = "0x00000000000000000000000000000000000f00d5" as Address;
const probeAbi = parseAbi([
  "function amounts(uint160 sqrtPriceX96, int24 tick, int24 tickLower, int24 tickUpper, uint128 liquidity) pure returns (uint256, uint256)",
]);
let probeCode: Promise<Hex> | undefined;
const loadProbe = async (): Promise<Hex> => {
  const source = await readFile(new URL("../fixtures/LiquidityProbe.sol", import.meta.url), "utf8");
  const compiled = await compileSolidity({
    name: "liquidity-probe",
    sources: { "LiquidityProbe.sol": source },
    cacheDir: tmpdir(),
  });
  return compiled.LiquidityProbe!.deployedBytecode;
};

/** Token amounts of `liquidity` in [tickLower, tickUpper) at the pool's price and tick, by Uniswap V4's pool math. */
export const referenceAmounts = async (
  client: PublicClient,
  sqrtPriceX96: bigint,
  tick: number,
  tickLower: number,
  tickUpper: number,
  liquidity: bigint,
) => {
  // A failed compile is not kept: test files share this module within a worker.
  probeCode ??= loadProbe().catch((error: unknown) => {
    probeCode = undefined;
    throw error;
  });
  const { data } = await client.call({
    to: PROBE,
    data: encodeFunctionData({
      abi: probeAbi,
      functionName: "amounts",
      args: [sqrtPriceX96, tick, tickLower, tickUpper, liquidity],
    }),
    stateOverride: [{ address: PROBE, code: await probeCode }],
  });
  const [amount0, amount1] = decodeFunctionResult({ abi: probeAbi, functionName: "amounts", data: data! });
  return { amount0, amount1 };
};
