import { keccak256Hex } from "../lib/keccak.js";

/**
 * The pools a router tries for a pair without having seen them created: the standard V3 fee
 * tiers and the V4 keys with the same fees and their usual tick spacings, without hooks. Pools
 * of other shapes (hooks, odd fees or spacings) are found only from the factories' events.
 */

/**
 * V3 fee tiers in hundredths of a basis point, with the tick spacing Uniswap's factory enables
 * for each. The spacing is asked of the factory (`feeAmountTickSpacing`) in the same multicall;
 * this table only stands in for a fork's factory that does not answer it.
 */
export const V3_FEE_TIERS: ReadonlyArray<{ readonly fee: number; readonly tickSpacing: number }> = [
  { fee: 100, tickSpacing: 1 },
  { fee: 500, tickSpacing: 10 },
  { fee: 3000, tickSpacing: 60 },
  { fee: 10000, tickSpacing: 200 },
];

/** The V4 keys routers and front ends create by default: the V3 tiers' fee and spacing, no hooks. */
export const V4_STANDARD_KEYS: ReadonlyArray<{ readonly fee: number; readonly tickSpacing: number }> =
  V3_FEE_TIERS;

export const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/** A V4 PoolKey; currency0 sorts below currency1 (the zero address, native ETH, sorts first). */
export interface V4PoolKey {
  readonly currency0: string;
  readonly currency1: string;
  readonly fee: number;
  readonly tickSpacing: number;
  readonly hooks: string;
}

/** A PoolKey as any reader holds it: numbers from a lookup's table, bigints from a decoded position. */
interface AnyPoolKey {
  readonly currency0: string;
  readonly currency1: string;
  readonly fee: number | bigint;
  readonly tickSpacing: number | bigint;
  readonly hooks: string;
}

const word = (value: string | number | bigint): string =>
  typeof value === "string"
    ? value.slice(2).toLowerCase().padStart(64, "0")
    : BigInt.asUintN(256, BigInt(value)).toString(16).padStart(64, "0");

/**
 * `abi.encode(key)`: the key's five static fields as five words (int24 in two's complement), as
 * 0x-prefixed hex. Built by hand: a lookup encodes thousands of these per request.
 */
export const encodeV4PoolKey = (key: AnyPoolKey): string =>
  `0x${word(key.currency0)}${word(key.currency1)}${word(key.fee)}${word(key.tickSpacing)}${word(key.hooks)}`;

/** `PoolId = keccak256(abi.encode(key))`. */
export const v4PoolId = (key: AnyPoolKey): string => keccak256Hex(encodeV4PoolKey(key));
