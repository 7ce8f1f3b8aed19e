import type { RawCall, RawResult } from "../../chains/multicall3.js";
import { addressWord, intWord, rawCall, uintWord } from "../../chains/rawCalls.js";
import type { IndexedPool } from "../../indexer/IndexRecords.js";

/** A position manager's record of one NFT. */
export interface ManagedPosition {
  readonly liquidity: bigint;
  readonly feeGrowthInside0Last: bigint;
  readonly feeGrowthInside1Last: bigint;
  readonly tokensOwed0: bigint;
  readonly tokensOwed1: bigint;
}

/** A pool's price and fee growth. */
export interface PoolState {
  readonly sqrtPriceX96: bigint;
  readonly tick: number;
  readonly feeGrowthGlobal0: bigint;
  readonly feeGrowthGlobal1: bigint;
  /** Hundredths of a bip: the pool's fee tier, or an Algebra pool's current dynamic fee. */
  readonly fee: number | null;
}

/** A tick's fee growth on its far side. */
export interface TickState {
  readonly outside0: bigint;
  readonly outside1: bigint;
}

/**
 * How a V3-design manager and its pools are read: NonfungiblePositionManager `positions`,
 * the pool's price and global fee growth, and a tick's outside fee growth. Uniswap V3 and its
 * forks, and Algebra, store the same quantities under different names and layouts.
 */
export interface ConcentratedReads {
  readonly position: (manager: string, tokenId: bigint) => RawCall;
  readonly decodePosition: (result: RawResult | undefined) => ManagedPosition | undefined;
  /** A fixed number of calls per pool. */
  readonly pool: (pool: IndexedPool) => ReadonlyArray<RawCall>;
  readonly decodePool: (pool: IndexedPool, results: ReadonlyArray<RawResult>) => PoolState | undefined;
  readonly tick: (pool: string, tick: number) => RawCall;
  readonly decodeTick: (result: RawResult | undefined) => TickState | undefined;
}

/** `positions(tokenId)`: both managers put liquidity, fee growth and tokens owed at words 7 to 11. */
const decodeManaged = (result: RawResult | undefined): ManagedPosition | undefined => {
  const liquidity = uintWord(result, 7);
  const last0 = uintWord(result, 8);
  const last1 = uintWord(result, 9);
  const owed0 = uintWord(result, 10);
  const owed1 = uintWord(result, 11);
  if (liquidity === undefined || last0 === undefined || last1 === undefined) return undefined;
  if (owed0 === undefined || owed1 === undefined) return undefined;
  return {
    liquidity,
    feeGrowthInside0Last: last0,
    feeGrowthInside1Last: last1,
    tokensOwed0: owed0,
    tokensOwed1: owed1,
  };
};

const decodePoolWords = (results: ReadonlyArray<RawResult>, fee: number | null): PoolState | undefined => {
  const sqrtPriceX96 = uintWord(results[0], 0);
  const tick = intWord(results[0], 1, 24);
  const global0 = uintWord(results[1], 0);
  const global1 = uintWord(results[2], 0);
  if (sqrtPriceX96 === undefined || sqrtPriceX96 === 0n || tick === undefined) return undefined;
  if (global0 === undefined || global1 === undefined) return undefined;
  return { sqrtPriceX96, tick: Number(tick), feeGrowthGlobal0: global0, feeGrowthGlobal1: global1, fee };
};

/** Uniswap V3 and forks: `slot0`, `feeGrowthGlobal{0,1}X128`, `ticks` (outside growth at words 2 and 3). */
export const v3Reads: ConcentratedReads = {
  position: (manager, tokenId) => rawCall(manager, "positions(uint256)", tokenId),
  decodePosition: decodeManaged,
  pool: (pool) => [
    rawCall(pool.pool, "slot0()"),
    rawCall(pool.pool, "feeGrowthGlobal0X128()"),
    rawCall(pool.pool, "feeGrowthGlobal1X128()"),
  ],
  decodePool: (pool, results) => decodePoolWords(results, pool.fee),
  tick: (pool, tick) => rawCall(pool, "ticks(int24)", tick),
  decodeTick: (result) => {
    const outside0 = uintWord(result, 2);
    const outside1 = uintWord(result, 3);
    return outside0 === undefined || outside1 === undefined ? undefined : { outside0, outside1 };
  },
};

/**
 * Algebra Integral: `globalState` (price, tick, current fee), `totalFeeGrowth{0,1}Token`,
 * `ticks` (outer fee growth at words 4 and 5).
 */
export const algebraReads: ConcentratedReads = {
  position: (manager, tokenId) => rawCall(manager, "positions(uint256)", tokenId),
  decodePosition: decodeManaged,
  pool: (pool) => [
    rawCall(pool.pool, "globalState()"),
    rawCall(pool.pool, "totalFeeGrowth0Token()"),
    rawCall(pool.pool, "totalFeeGrowth1Token()"),
  ],
  decodePool: (_pool, results) => {
    const fee = uintWord(results[0], 2);
    return decodePoolWords(results, fee === undefined ? null : Number(fee));
  },
  tick: (pool, tick) => rawCall(pool, "ticks(int24)", tick),
  decodeTick: (result) => {
    const outside0 = uintWord(result, 4);
    const outside1 = uintWord(result, 5);
    return outside0 === undefined || outside1 === undefined ? undefined : { outside0, outside1 };
  },
};

/**
 * `ownerOf(tokenId)` of a position manager (V3-design, Algebra and V4 alike), read with the position:
 * the index's record that a wallet holds an NFT may be stale (discovery wrote it at an older block,
 * and the wallet has sold it since), so a position is shown only if its owner at the read block is the
 * wallet.
 */
export const ownerCall = (manager: string, tokenId: bigint): RawCall =>
  rawCall(manager, "ownerOf(uint256)", tokenId);

/**
 * Whether `ownerOf` answered an owner other than `wallet`. A revert (a burned token, or a call that
 * failed for another reason) is not taken as proof: only a record another owner is named for is stale.
 */
export const ownedByAnother = (result: RawResult | undefined, wallet: string): boolean => {
  const owner = addressWord(result, 0);
  return result?.success === true && owner !== undefined && owner !== wallet.toLowerCase();
};

/** Whether `ownerOf` answered `wallet` (a burned token's `ownerOf` reverts: not owned). */
export const ownedBy = (result: RawResult | undefined, wallet: string): boolean =>
  addressWord(result, 0) === wallet.toLowerCase();
