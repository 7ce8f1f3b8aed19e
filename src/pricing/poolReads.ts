import { decodeAbiParameters, encodeFunctionData, type Hex, parseAbi, toFunctionSelector } from "viem";
import { getEthBalanceCall, type RawCall, type RawResult } from "../chains/multicall3.js";
import type { IndexedPool } from "../indexer/IndexRecords.js";

const ABI = parseAbi([
  "function getReserves() view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)",
  "function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16, uint16, uint16, uint8, bool)",
  "function liquidity() view returns (uint128)",
  "function balanceOf(address) view returns (uint256)",
  "function getSlot0(bytes32 poolId) view returns (uint160 sqrtPriceX96, int24 tick, uint24 protocolFee, uint24 lpFee)",
  "function getLiquidity(bytes32 poolId) view returns (uint128 liquidity)",
]);

/** The zero address stands for the native currency in V4 pools. */
export const NATIVE_CURRENCY = "0x0000000000000000000000000000000000000000";

/** What is read of a pool at one block, before prices are known. */
export interface PoolSnapshot {
  readonly pool: IndexedPool;
  /** V2 reserves, or V3/V4 virtual reserves of the active liquidity. */
  readonly reserve0: bigint;
  readonly reserve1: bigint;
  /** V3/V4 sqrtPriceX96; undefined for V2. */
  readonly sqrtPriceX96: bigint | undefined;
  /** Tokens actually held for the pool (V3: by the pool; V4: by the whole pool manager); V2: the reserves. */
  readonly held0: bigint;
  readonly held1: bigint;
}

// Calldata built once, or by concatenation: these run for every pool and token of every request.
const CALLDATA = {
  getReserves: encodeFunctionData({ abi: ABI, functionName: "getReserves" }),
  slot0: encodeFunctionData({ abi: ABI, functionName: "slot0" }),
  liquidity: encodeFunctionData({ abi: ABI, functionName: "liquidity" }),
  balanceOf: toFunctionSelector("balanceOf(address)"),
  getSlot0: toFunctionSelector("getSlot0(bytes32)"),
  getLiquidity: toFunctionSelector("getLiquidity(bytes32)"),
} as const;

const call = (target: string, functionName: "getReserves" | "slot0" | "liquidity"): RawCall => ({
  target,
  callData: CALLDATA[functionName],
});

const withArgument = (selector: Hex, word: string): Hex =>
  `${selector}${word.slice(2).padStart(64, "0")}` as Hex;

const balanceOf = (token: string, owner: string): RawCall =>
  token === NATIVE_CURRENCY
    ? getEthBalanceCall(owner)
    : { target: token, callData: withArgument(CALLDATA.balanceOf, owner) };

/**
 * The calls that read a pool's state, in a fixed order per kind, so that the
 * results can be decoded by position. V4 pools need the pool manager's
 * StateView (`stateView`); without it they are not read.
 */
export const poolCalls = (pool: IndexedPool, stateView: string | undefined): ReadonlyArray<RawCall> => {
  switch (pool.kind) {
    case "v2":
      return [call(pool.pool, "getReserves")];
    case "v3":
      return [
        call(pool.pool, "slot0"),
        call(pool.pool, "liquidity"),
        balanceOf(pool.token0, pool.pool),
        balanceOf(pool.token1, pool.pool),
      ];
    case "v4":
      if (stateView === undefined) return [];
      return [
        {
          target: stateView,
          callData: encodeFunctionData({ abi: ABI, functionName: "getSlot0", args: [pool.pool as Hex] }),
        },
        {
          target: stateView,
          callData: encodeFunctionData({ abi: ABI, functionName: "getLiquidity", args: [pool.pool as Hex] }),
        },
        balanceOf(pool.token0, pool.factory),
        balanceOf(pool.token1, pool.factory),
      ];
  }
};

const word = (result: RawResult | undefined, index = 0): bigint | undefined => {
  if (result === undefined || !result.success) return undefined;
  const start = 2 + index * 64;
  if (result.returnData.length < start + 64) return undefined;
  return BigInt(`0x${result.returnData.slice(start, start + 64)}`);
};

const Q96 = 2n ** 96n;

/** Decodes what `poolCalls` read; `undefined` when the pool could not be read (or is empty). */
export const decodePool = (
  pool: IndexedPool,
  results: ReadonlyArray<RawResult>,
): PoolSnapshot | undefined => {
  if (pool.kind === "v2") {
    const reserve0 = word(results[0], 0);
    const reserve1 = word(results[0], 1);
    if (reserve0 === undefined || reserve1 === undefined || reserve0 === 0n || reserve1 === 0n)
      return undefined;
    return { pool, reserve0, reserve1, sqrtPriceX96: undefined, held0: reserve0, held1: reserve1 };
  }
  const sqrtPriceX96 = word(results[0], 0);
  const liquidity = word(results[1], 0);
  const held0 = word(results[2]) ?? 0n;
  const held1 = word(results[3]) ?? 0n;
  if (sqrtPriceX96 === undefined || liquidity === undefined || sqrtPriceX96 === 0n || liquidity === 0n)
    return undefined;
  return {
    pool,
    reserve0: (liquidity * Q96) / sqrtPriceX96,
    reserve1: (liquidity * sqrtPriceX96) / Q96,
    sqrtPriceX96,
    held0,
    held1,
  };
};

/** Raw `uint256` of a `balanceOf`/`getEthBalance` result; undefined when the call failed. */
export const decodeBalance = (result: RawResult | undefined): bigint | undefined => {
  if (result === undefined || !result.success || result.returnData.length < 66) return undefined;
  const [value] = decodeAbiParameters([{ type: "uint256" }], result.returnData.slice(0, 66) as Hex);
  return value;
};

export { balanceOf as balanceOfCall };
