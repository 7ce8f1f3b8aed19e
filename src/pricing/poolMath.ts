/**
 * Exact pool arithmetic on bigints, converted to doubles only at the end.
 * Prices are "units of token1 per unit of token0" in whole tokens (decimals
 * applied), the way a person reads them.
 */

const Q96 = 2n ** 96n;
const SCALE = 80n;

/** `value` (a raw integer amount) as a double of whole tokens. Exact for the first 15-16 digits. */
export const toUnits = (value: bigint, decimals: number): number => {
  if (value === 0n) return 0;
  const text = value.toString();
  if (text.length <= 15) return Number(value) / 10 ** decimals;
  // Keep 17 significant digits and carry the rest in the exponent, so huge raw amounts stay accurate.
  const head = Number(text.slice(0, 17));
  return head * 10 ** (text.length - 17 - decimals);
};

/** Price of token0 in token1 from V2 reserves. `undefined` when a reserve is empty. */
export const priceFromReserves = (
  reserve0: bigint,
  reserve1: bigint,
  decimals0: number,
  decimals1: number,
): number | undefined => {
  if (reserve0 === 0n || reserve1 === 0n) return undefined;
  return toUnits(reserve1, decimals1) / toUnits(reserve0, decimals0);
};

/**
 * Price of token0 in token1 from a V3/V4 `sqrtPriceX96` (sqrt(raw1/raw0) * 2^96).
 * The square is taken on 2^96-scaled bigints to keep precision for prices far
 * from 1 (tokens with very different decimals or values).
 */
export const priceFromSqrtPriceX96 = (
  sqrtPriceX96: bigint,
  decimals0: number,
  decimals1: number,
): number | undefined => {
  if (sqrtPriceX96 === 0n) return undefined;
  // raw1/raw0 = sqrtPriceX96^2 / 2^192. Scaling by 10^SCALE before the division keeps
  // 17 significant digits for any price a uint160 sqrtPriceX96 can express.
  const scaled = (sqrtPriceX96 * sqrtPriceX96 * 10n ** SCALE) / (Q96 * Q96);
  return toUnits(scaled, Number(SCALE)) * 10 ** (decimals0 - decimals1);
};

/**
 * The amounts of token0 and token1 a V3/V4 pool's active liquidity `L`
 * represents at the current price, as if it were a constant-product pool:
 * x = L / sqrtP, y = L * sqrtP (raw units). They measure the depth behind the
 * current price.
 */
export const virtualReserves = (
  liquidity: bigint,
  sqrtPriceX96: bigint,
): { readonly amount0: bigint; readonly amount1: bigint } => {
  if (sqrtPriceX96 === 0n) return { amount0: 0n, amount1: 0n };
  return { amount0: (liquidity * Q96) / sqrtPriceX96, amount1: (liquidity * sqrtPriceX96) / Q96 };
};
