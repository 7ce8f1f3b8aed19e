import type { ChainConfig } from "../chains/ChainsConfig.js";
import type { DiscoveryProgress } from "../discovery/DiscoveryProgress.js";
import type { PriceQuote } from "../pricing/selectPrices.js";
import type { TokenStandard } from "./tokenStandard.js";

/** One holding read at a block, before it is shaped into a response entry. */
export interface Holding {
  /** Token contract, or `native`. */
  readonly address: string;
  readonly amount: bigint;
  readonly symbol: string | null;
  readonly name: string | null;
  readonly decimals: number | null;
  readonly price: PriceQuote | undefined;
}

/** Everything read for one wallet on one chain at one block. */
export interface ChainHoldings {
  readonly chainId: number;
  readonly block: number;
  /** Non-zero holdings (and any token asked for explicitly, even at zero). */
  readonly holdings: ReadonlyArray<Holding>;
  /** What the token asked for explicitly turned out to be (set when one was asked to be classified). */
  readonly classified?: TokenStandard;
}

/** A wallet's holdings on chosen chains, pinned to one block per chain. */
export interface HoldingsSnapshot {
  /**
   * Each chain's holdings, with how far the wallet's discovery there was when they were read:
   * taken before the read, so an answer never says complete about writes its read did not see.
   */
  readonly byChain: ReadonlyArray<{
    readonly chain: ChainConfig;
    readonly holdings: ChainHoldings;
    readonly progress: DiscoveryProgress;
  }>;
  readonly failures: ReadonlyArray<{ readonly chain_id: number; readonly description: string }>;
}
