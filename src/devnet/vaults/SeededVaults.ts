import type { ManifestRestaking, ManifestVault } from "../DevnetManifest.js";

/**
 * What the vault and restaking seeds of one chain produced, in manifest shape (docs/devnet.md, "Vaults
 * and restaking"): the ERC-4626 vaults with who holds their shares, and the restaking stand-ins
 * (ethereum only; null elsewhere).
 */
export interface SeededVaults {
  readonly vaults: readonly ManifestVault[];
  readonly restaking: ManifestRestaking | null;
}
