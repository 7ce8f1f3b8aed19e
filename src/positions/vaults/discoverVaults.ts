import type { IndexReader } from "../../indexer/IndexReader.js";

/** An ERC-4626 vault whose shares the wallet touched, with its asset and, when that asset is itself a vault, the asset's asset. */
export interface HeldVault {
  readonly vault: string;
  readonly asset: string;
  readonly innerAsset: string | undefined;
}

/**
 * The vaults among the tokens a wallet touched on a chain, from the index's probes only (each token
 * was probed once when first touched; the request never probes). A vault over a vault carries the
 * inner vault's asset, through which it is priced. Deeper nesting is not followed.
 */
export const discoverVaults = async (
  index: IndexReader,
  chainId: number,
  touched: ReadonlyArray<string>,
): Promise<ReadonlyArray<HeldVault>> => {
  const probes = await index.vaultProbes(chainId, touched);
  const vaults: Array<{ vault: string; asset: string }> = [];
  touched.forEach((vault, i) => {
    const asset = probes[i]?.asset;
    if (asset !== undefined && asset !== null) vaults.push({ vault, asset });
  });
  if (vaults.length === 0) return [];
  const inner = await index.vaultProbes(
    chainId,
    vaults.map((v) => v.asset),
  );
  return vaults.map((v, i) => ({ ...v, innerAsset: inner[i]?.asset ?? undefined }));
};
