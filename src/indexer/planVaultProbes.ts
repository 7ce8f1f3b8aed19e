import type { Operation } from "../storage/Level.js";
import type { UndoEntry, VaultProbe } from "./IndexRecords.js";
import { vaultProbeKey } from "./indexKeys.js";
import type { IndexReads } from "./PendingWrites.js";

/** Probes tokens for ERC-4626 (see readVaultProbes): each vault's asset, null for a token that is not one. */
export type ProbeVaults = (tokens: ReadonlyArray<string>) => Promise<ReadonlyArray<string | null>>;

/**
 * The writes that record, for each token a block touched that the index has never probed, whether it
 * is an ERC-4626 vault and of which asset. Every token is probed once; the request path only reads
 * the answer. A probe is a key the block adds, so a reorg of the block removes it and the token is
 * probed again when the new branch touches it.
 */
export const planVaultProbes = async (
  db: IndexReads,
  chainId: number,
  tokens: ReadonlyArray<string>,
  probe: ProbeVaults,
): Promise<{ readonly ops: ReadonlyArray<Operation>; readonly undo: ReadonlyArray<UndoEntry> }> => {
  if (tokens.length === 0) return { ops: [], undo: [] };
  const keys = tokens.map((token) => vaultProbeKey(chainId, token));
  const known = await db.getMany(keys);
  const unprobed = tokens.filter((_, i) => known[i] === undefined);
  if (unprobed.length === 0) return { ops: [], undo: [] };
  const assets = await probe(unprobed);
  const ops: Array<Operation> = [];
  const undo: Array<UndoEntry> = [];
  unprobed.forEach((token, i) => {
    const key = vaultProbeKey(chainId, token);
    ops.push({ type: "put", key, value: { asset: assets[i] ?? null } satisfies VaultProbe });
    undo.push(key);
  });
  return { ops, undo };
};
