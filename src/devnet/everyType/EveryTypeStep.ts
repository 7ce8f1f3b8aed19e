import type { ChainClient } from "../ChainClient.js";
import type { DevnetChainSpec } from "../chainSpecs.js";
import type { ManifestLendingPosition, ManifestRestaking } from "../DevnetManifest.js";
import type { DeployedContracts } from "../deployContracts.js";
import type { WalletRole } from "../devAccounts.js";
import type { SeededAave } from "../lending/aave/seedAave.js";
import type { SeededCompound } from "../lending/seedCompoundLending.js";
import type { TxBatch } from "../lending/txBatch.js";
import type { SeededLiquidity, SeededLiquidityPosition } from "../positions/SeededLiquidityPosition.js";
import type { SeededPool } from "../SeededPool.js";
import type { SeededVaults } from "../vaults/SeededVaults.js";

/** What the protocol seeds of one chain deployed, for steps that open one more position in them. */
export interface SeededProtocols {
  readonly client: ChainClient;
  readonly spec: DevnetChainSpec;
  readonly contracts: DeployedContracts;
  readonly pools: readonly SeededPool[];
  readonly liquidity: SeededLiquidity;
  readonly aave: SeededAave;
  readonly compound: SeededCompound;
  readonly vaults: SeededVaults;
}

/** What a step opened for the holder, in manifest shape; nothing when the chain lacks the protocol. */
export interface EveryTypeOpened {
  readonly liquidity?: readonly SeededLiquidityPosition[];
  readonly lending?: readonly ManifestLendingPosition[];
  /** Vaults the holder now has shares of. */
  readonly vaults?: readonly string[];
  readonly restakeDeposits?: ManifestRestaking["deposits"];
}

/**
 * Opens one position of one type (spec §2.3 `type`) for `holder` on a chain, in a protocol an earlier seed
 * deployed. A `mined` step sends its own transactions (it needs their receipts, e.g. an NFT's token id);
 * a `batched` step queues its transactions into the one block every batched step shares (see TxBatch).
 */
export type EveryTypeStep = {
  /** The position types the step's position is reported as (a cToken market is LendingV2 or LendingV2Fork). */
  readonly types: readonly string[];
  /** What it opens, for the docs and errors. */
  readonly what: string;
} & (
  | {
      readonly phase: "mined";
      readonly open: (chain: SeededProtocols, holder: WalletRole) => Promise<EveryTypeOpened>;
    }
  | {
      readonly phase: "batched";
      readonly open: (chain: SeededProtocols, holder: WalletRole, batch: TxBatch) => Promise<EveryTypeOpened>;
    }
);
