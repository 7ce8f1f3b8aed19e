import type { PublicClient } from "viem";
import { aggregate3 } from "../chains/multicall3.js";
import { addressWord, rawCall } from "../chains/rawCalls.js";

/**
 * Each cToken's `underlying()`, in one multicall: null where the call reverts or answers nothing,
 * which is how a native-currency market (cETH, vBNB) answers.
 */
export const readUnderlying = async (
  client: PublicClient,
  cTokens: ReadonlyArray<string>,
): Promise<ReadonlyArray<string | null>> => {
  if (cTokens.length === 0) return [];
  const results = await aggregate3(
    client,
    cTokens.map((cToken) => rawCall(cToken, "underlying()")),
  );
  return cTokens.map((_, i) => addressWord(results[i], 0) ?? null);
};
