import { aggregate3 } from "../chains/multicall3.js";
import { addressWord, rawCall } from "../chains/rawCalls.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";

/** A contract whose asset the index needs: a cToken's underlying, a Comet's base token, an SY's asset. */
export interface AssetOf {
  readonly contract: string;
  readonly kind: "ctoken" | "comet" | "sy";
}

/** The call that answers each kind's asset, and the word of the answer that holds it. */
const ASSET_CALLS = {
  ctoken: { signature: "underlying()", word: 0 },
  comet: { signature: "baseToken()", word: 0 },
  // `assetInfo()` answers (assetType, assetAddress, assetDecimals).
  sy: { signature: "assetInfo()", word: 1 },
} as const;

/**
 * Each contract's asset in one multicall: a cToken's `underlying()`, a Comet's `baseToken()`, a
 * Pendle SY's `assetInfo()` asset; null where the call reverts or answers nothing, which is how a native-currency cToken market
 * (cETH, vBNB) answers.
 */
export const readUnderlying = async (
  client: ChainRpc,
  contracts: ReadonlyArray<AssetOf>,
): Promise<ReadonlyArray<string | null>> => {
  if (contracts.length === 0) return [];
  const results = await aggregate3(
    client,
    contracts.map(({ contract, kind }) => rawCall(contract, ASSET_CALLS[kind].signature)),
  );
  return contracts.map(({ kind }, i) => addressWord(results[i], ASSET_CALLS[kind].word) ?? null);
};
