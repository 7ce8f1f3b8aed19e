import type { Address, Hex } from "viem";
import type { WalletRole } from "../devAccounts.js";

/** The position families the seed opens; `algebra` is the Algebra Integral variant of the V3 design. */
export type LiquidityKind = "v2" | "v3" | "v4" | "algebra";

/** Why a seeded position exists (docs/devnet.md, "Liquidity positions"). */
export type LiquidityPurpose =
  | "v2_lp"
  | "fork_v2_lp"
  | "in_range"
  | "below_range"
  | "above_range"
  | "tokens_owed"
  | "native_eth"
  | "hooked"
  | "transferred"
  | "burned"
  | "algebra"
  | "every_type";

/** One liquidity position the seed opened, as the manifest's `liquidity_positions[]` describes it. */
export interface SeededLiquidityPosition {
  readonly kind: LiquidityKind;
  /** Protocol name as in the manifest's `pools[]` (`UniswapV3`, `SushiSwapV2`, `AlgebraIntegral`, ...). */
  readonly protocol: string;
  /** The role holding it now (for a burned NFT: the last owner). */
  readonly wallet: WalletRole;
  /** Position NFT id; null for V2 LP tokens. */
  readonly tokenId: bigint | null;
  /** Pair or pool address; for V4 the pool id. */
  readonly pool: Address | Hex;
  /** The contract that minted the NFT (V3/V4/Algebra position manager); null for V2. */
  readonly positionManager: Address | null;
  /** Tick range; null for V2. */
  readonly tickLower: number | null;
  readonly tickUpper: number | null;
  readonly purpose: LiquidityPurpose;
}

/** What seeding liquidity positions adds to a chain: the positions and the contracts it deployed. */
export interface SeededLiquidity {
  readonly positions: readonly SeededLiquidityPosition[];
  /** Manifest `contracts` entries added by this step (hook, Algebra deployment). */
  readonly contracts: Readonly<Record<string, Address>>;
}
