import type { EventBase } from "./EventBase.js";

/**
 * Algebra Integral factory `Pool(address indexed token0, address indexed token1, address pool)`.
 * Algebra pools' `Mint`, `Burn` and `Collect` share Uniswap V3's signatures and decode as `v3.*`.
 */
export interface AlgebraPoolCreated extends EventBase {
  readonly kind: "algebra.poolCreated";
  readonly token0: string;
  readonly token1: string;
  readonly pool: string;
}

/** Algebra-style factory events. */
export type AlgebraEvent = AlgebraPoolCreated;
