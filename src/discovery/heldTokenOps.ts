import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import type { TokenMetadata, TouchedToken, VaultProbe } from "../indexer/IndexRecords.js";
import { tokenMetadataKey, vaultProbeKey, walletTokenKey } from "../indexer/indexKeys.js";
import { readTokenMetadata } from "../indexer/readTokenMetadata.js";
import { readVaultProbes } from "../indexer/readVaultProbes.js";
import type { Db, Operation } from "../storage/Level.js";
import { readNow } from "../storage/readNow.js";

/** A token discovery found the wallet holds or once held, with the block that showed it. */
export interface FoundToken {
  readonly token: string;
  readonly standard: TouchedToken["standard"];
  readonly block: number;
}

/**
 * The writes that make found tokens part of the wallet's index, as if the indexer had seen the
 * wallet touch them at `block`: the wallet's token record where it has none, and for fungible
 * tokens the index has never met, their metadata and ERC-4626 probe (read now, once), so the
 * request path finds them as it finds tokens of live blocks.
 */
export const heldTokenOps = async (
  db: Db,
  rpc: ChainRpc,
  chainId: number,
  wallet: string,
  found: ReadonlyArray<FoundToken>,
): Promise<ReadonlyArray<Operation>> => {
  const unique = [...new Map(found.map((f) => [f.token, f])).values()];
  if (unique.length === 0) return [];
  const ops: Array<Operation> = [];
  const walletKeys = unique.map((f) => walletTokenKey(wallet, chainId, f.token));
  const fungible = unique.filter((f) => f.standard === "erc20").map((f) => f.token);
  // A first answer waits for these reads.
  const known = await readNow(db, walletKeys);
  const metadata = await readNow(
    db,
    fungible.map((token) => tokenMetadataKey(chainId, token)),
  );
  const probes = await readNow(
    db,
    fungible.map((token) => vaultProbeKey(chainId, token)),
  );
  unique.forEach((f, i) => {
    if (known[i] !== undefined) return;
    ops.push({
      type: "put",
      key: walletKeys[i]!,
      value: { standard: f.standard, first_block: f.block } satisfies TouchedToken,
    });
  });

  const undescribed = fungible.filter((_, i) => metadata[i] === undefined);
  const unprobed = fungible.filter((_, i) => probes[i] === undefined);
  const [described, assets] = await Promise.all([
    readTokenMetadata(rpc, undescribed),
    readVaultProbes(rpc, unprobed),
  ]);
  undescribed.forEach((token, i) => {
    const meta = described[i];
    if (meta !== undefined)
      ops.push({ type: "put", key: tokenMetadataKey(chainId, token), value: meta satisfies TokenMetadata });
  });
  unprobed.forEach((token, i) => {
    ops.push({
      type: "put",
      key: vaultProbeKey(chainId, token),
      value: { asset: assets[i] ?? null } satisfies VaultProbe,
    });
  });
  return ops;
};
