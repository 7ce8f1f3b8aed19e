import type { PublicClient } from "viem";
import { aggregate3 } from "../chains/multicall3.js";
import { addressWord, rawCall } from "../chains/rawCalls.js";

/** A lending contract whose asset the index needs: a cToken's underlying or a Comet's base token. */
export interface AssetOf {
  readonly contract: string;
  readonly kind: "ctoken" | "comet";
}

/**
 * Each contract's asset in one multicall: a cToken's `underlying()`, a Comet's `baseToken()`;
 * null where the call reverts or answers nothing, which is how a native-currency cToken market
 * (cETH, vBNB) answers.
 */
export const readUnderlying = async (
  client: PublicClient,
  contracts: ReadonlyArray<AssetOf>,
): Promise<ReadonlyArray<string | null>> => {
  if (contracts.length === 0) return [];
  const results = await aggregate3(
    client,
    contracts.map(({ contract, kind }) =>
      rawCall(contract, kind === "ctoken" ? "underlying()" : "baseToken()"),
    ),
  );
  return contracts.map((_, i) => addressWord(results[i], 0) ?? null);
};
