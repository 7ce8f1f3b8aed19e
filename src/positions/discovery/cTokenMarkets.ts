import { addressWord, rawCall } from "../../chains/rawCalls.js";
import { addNewKeys } from "../../indexer/addNewKeys.js";
import type { LendingToken } from "../../indexer/IndexRecords.js";
import { lendingTokenKey } from "../../indexer/indexKeys.js";
import { ZERO_ADDRESS } from "./abiWords.js";
import { readComptrollerMarkets } from "./comptrollerMarkets.js";
import { type DiscoveryContext, type Findings, NO_FINDINGS, readAt } from "./DiscoveryContext.js";

/**
 * Every cToken of the registry's comptrollers, as the indexer records one from `MarketListed`: the
 * comptroller's `getAllMarkets()`, then each cToken's `underlying()`, which a native-currency market
 * (cETH, vBNB) does not have: its asset is the zero address (readUnderlying.ts). Two round trips per
 * chain. A wallet's supply is then its balance of the cToken (swept); its borrows, no token of its
 * own, are found per wallet (findCTokenBorrows).
 */
export const findCTokenMarkets = async (context: DiscoveryContext): Promise<Findings> => {
  const markets = (await readComptrollerMarkets(context)).flatMap(({ deployment, cTokens }) =>
    cTokens.map((cToken) => ({ comptroller: deployment.address, cToken })),
  );
  if (markets.length === 0) return NO_FINDINGS;
  const underlying = await readAt(
    context,
    markets.map(({ cToken }) => rawCall(cToken, "underlying()")),
  );
  const writes = markets.map(({ comptroller, cToken }, i) => {
    const record: LendingToken = {
      kind: "ctoken",
      market: comptroller,
      side: "supply",
      asset: addressWord(underlying[i], 0) ?? ZERO_ADDRESS,
    };
    return [lendingTokenKey(context.chain.chain_id, cToken), record] as const;
  });
  return { ops: (await addNewKeys(context.db, writes)).ops };
};
