/** `low_liquidity` is true below this `pool_size` (spec 8). */
export const LOW_LIQUIDITY_USD = 10_000;

/** `exclude_spam_tokens=true` drops tokens priced from pools under this size (spec 8). */
export const SPAM_LIQUIDITY_USD = 100;
