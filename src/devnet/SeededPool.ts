import type { Address, Hex } from "viem";
import type { AmmKind } from "../chains/ChainsConfig.js";
import type { Protocol } from "./marketSpecs.js";
import type { PoolKey } from "./poolMath.js";

/** A pool the seed created, with what is needed to read or trade it. */
export interface SeededPool {
  readonly protocol: Protocol;
  readonly kind: AmmKind;
  /** Pair/pool contract (v2, v3); null for v4, whose pools live in the PoolManager. */
  readonly address: Address | null;
  /** V4 pool id (keccak256 of the pool key); null for v2/v3. */
  readonly poolId: Hex | null;
  /** V4 pool key; null for v2/v3. */
  readonly key: PoolKey | null;
  readonly token0: Address;
  readonly token1: Address;
  readonly symbol0: string;
  readonly symbol1: string;
  /** Fee in hundredths of a bip (3000 = 0.3 %). */
  readonly fee: number;
  readonly tickSpacing: number | null;
  readonly purpose: string;
}
