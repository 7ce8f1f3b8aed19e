import { protocolsOf } from "../../chains/ChainsConfig.js";
import { addressWord, rawCall } from "../../chains/rawCalls.js";
import { addNewKeys } from "../../indexer/addNewKeys.js";
import type { LendingToken } from "../../indexer/IndexRecords.js";
import { lendingTokenKey } from "../../indexer/indexKeys.js";
import { type DiscoveryContext, type Findings, NO_FINDINGS, readAt } from "./DiscoveryContext.js";

/**
 * The registry's Comets as lending tokens, as the indexer records one on its first event: the market
 * itself (its base supply is an ERC-20 balance) with its `baseToken()`. One round trip per chain; a
 * Comet that does not answer is left out, as the indexer leaves out one whose base it cannot read.
 */
export const findCometMarkets = async (context: DiscoveryContext): Promise<Findings> => {
  const comets = protocolsOf(context.chain)
    .filter((p) => p.kind === "comet")
    .map((p) => p.address);
  if (comets.length === 0) return NO_FINDINGS;
  const bases = await readAt(
    context,
    comets.map((comet) => rawCall(comet, "baseToken()")),
  );
  const writes = comets.flatMap((comet, i) => {
    const base = addressWord(bases[i], 0);
    if (base === undefined) return [];
    const record: LendingToken = { kind: "comet", market: comet, side: "supply", asset: base };
    return [[lendingTokenKey(context.chain.chain_id, comet), record] as const];
  });
  return { ops: (await addNewKeys(context.db, writes)).ops };
};
