import { protocolsOf } from "../../chains/ChainsConfig.js";
import { addressWord, rawCall } from "../../chains/rawCalls.js";
import { addNewKeys } from "../../indexer/addNewKeys.js";
import type { LendingToken } from "../../indexer/IndexRecords.js";
import { lendingTokenKey } from "../../indexer/indexKeys.js";
import { addressArray, ZERO_ADDRESS } from "./abiWords.js";
import { type DiscoveryContext, type Findings, NO_FINDINGS, readAt } from "./DiscoveryContext.js";

/**
 * Where `getReserveData(asset)` puts the aToken and the variable debt token. V2's `ReserveData` has
 * no id before the token addresses; V3's (and V3.3's `ReserveDataLegacy`) has a uint16 id there.
 */
const TOKEN_WORDS = {
  aave_v2: { aToken: 7, variableDebt: 9 },
  aave_v3: { aToken: 8, variableDebt: 10 },
} as const;

/**
 * The supply and variable debt tokens of every reserve of the registry's Aave V2 and V3 pools, as
 * the indexer records them from the configurator's `ReserveInitialized`: the pool's
 * `getReservesList()`, then `getReserveData(asset)` of each reserve. Two round trips per chain, not
 * per wallet; the pool alone is asked, so a deployment without `configurator` is found too. A wallet's
 * Aave positions are then its balances of these tokens (the balance sweep's universe includes them).
 */
export const findAaveReserves = async (context: DiscoveryContext): Promise<Findings> => {
  const pools = protocolsOf(context.chain).filter((p) => p.kind === "aave_v2" || p.kind === "aave_v3");
  if (pools.length === 0) return NO_FINDINGS;
  const lists = await readAt(
    context,
    pools.map((p) => rawCall(p.address, "getReservesList()")),
  );
  const reserves = pools.flatMap((deployment, i) =>
    [...new Set(addressArray(lists[i], 0) ?? [])].map((asset) => ({ deployment, asset })),
  );
  if (reserves.length === 0) return NO_FINDINGS;
  const data = await readAt(
    context,
    reserves.map(({ deployment, asset }) => rawCall(deployment.address, "getReserveData(address)", asset)),
  );
  const writes: Array<readonly [string, LendingToken]> = [];
  reserves.forEach(({ deployment, asset }, i) => {
    const kind = deployment.kind as keyof typeof TOKEN_WORDS;
    const base = { kind, market: deployment.address, asset } as const;
    const tokens = [
      [addressWord(data[i], TOKEN_WORDS[kind].aToken), "supply"],
      [addressWord(data[i], TOKEN_WORDS[kind].variableDebt), "debt"],
    ] as const;
    for (const [token, side] of tokens)
      if (token !== undefined && token !== ZERO_ADDRESS)
        writes.push([lendingTokenKey(context.chain.chain_id, token), { ...base, side }]);
  });
  return { ops: (await addNewKeys(context.db, writes)).ops };
};
