import { vaultLensCode, vaultProbeCall } from "../chains/lens/vaultLens.js";
import { aggregate3 } from "../chains/multicall3.js";
import { addressWord, uintWord } from "../chains/rawCalls.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";

/**
 * Gas for the probe batch: each probe gives the token at most 4 × 100k gas (VaultLens.CALL_GAS), so
 * a batch of a block's new tokens stays far below this even if every one of them burns its share.
 */
const BATCH_GAS = 100_000_000n;

/**
 * Each token's ERC-4626 asset, or null when it is not a vault, in one multicall of VaultLens
 * `probe` calls (allowFailure): a token that reverts, burns gas or answers garbage fails its own
 * probe only. The answer must be exactly two words, the first a clean address.
 * A node without state overrides fails every probe: no vaults are found, nothing else breaks.
 */
export const readVaultProbes = async (
  client: ChainRpc,
  tokens: ReadonlyArray<string>,
): Promise<ReadonlyArray<string | null>> => {
  if (tokens.length === 0) return [];
  try {
    const code = await vaultLensCode();
    const results = await aggregate3(
      client,
      tokens.map((token) => vaultProbeCall(code, token)),
      { gas: BATCH_GAS },
    );
    return tokens.map((_, i) => {
      const result = results[i];
      if (result === undefined || !result.success || result.returnData.length !== 2 + 2 * 64) return null;
      const word = uintWord(result, 0);
      if (word === undefined || word >> 160n !== 0n) return null;
      return addressWord(result, 0) ?? null;
    });
  } catch {
    return tokens.map(() => null);
  }
};
