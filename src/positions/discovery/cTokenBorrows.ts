import { rawCall, uintWord } from "../../chains/rawCalls.js";
import { addNewKeys } from "../../indexer/addNewKeys.js";
import type { LendingParticipation } from "../../indexer/IndexRecords.js";
import { lendingParticipationKey } from "../../indexer/indexKeys.js";
import { readComptrollerMarkets } from "./comptrollerMarkets.js";
import { type DiscoveryContext, type Findings, NO_FINDINGS, readAt } from "./DiscoveryContext.js";

/**
 * The cToken markets a wallet owes to, as the indexer records a `Borrow` of a registry cToken: a
 * borrow is no token the wallet holds, so a balance sweep cannot show it. Each registry comptroller's
 * markets, then `borrowBalanceStored(wallet)` of each: two round trips. A debt repaid in full is not
 * found (the indexer's record, kept once seen, would be; the debt read at request time shows nothing
 * for it either way).
 */
export const findCTokenBorrows = async (
  context: DiscoveryContext,
  walletAddress: string,
): Promise<Findings> => {
  const wallet = walletAddress.toLowerCase();
  const cTokens = (await readComptrollerMarkets(context)).flatMap((c) => c.cTokens);
  if (cTokens.length === 0) return NO_FINDINGS;
  const debts = await readAt(
    context,
    cTokens.map((cToken) => rawCall(cToken, "borrowBalanceStored(address)", wallet)),
  );
  const writes = cTokens.flatMap((cToken, i) =>
    (uintWord(debts[i], 0) ?? 0n) > 0n
      ? [
          [
            lendingParticipationKey(wallet, context.chain.chain_id, cToken, undefined),
            { block: context.block.number } satisfies LendingParticipation,
          ] as const,
        ]
      : [],
  );
  return { ops: (await addNewKeys(context.db, writes)).ops };
};
