import { protocolsOf } from "../../chains/ChainsConfig.js";
import { addressWord, rawCall } from "../../chains/rawCalls.js";
import { addNewKeys } from "../../indexer/addNewKeys.js";
import type { RestakeDeposit } from "../../indexer/IndexRecords.js";
import { restakeDepositKey } from "../../indexer/indexKeys.js";
import { toAddress, wordArray } from "./abiWords.js";
import { type DiscoveryContext, type Findings, NO_FINDINGS, readAt } from "./DiscoveryContext.js";

/**
 * A wallet's restaking deposits in the registry's StrategyManagers (kind `restake`), as the indexer
 * records them from `Deposit` events: one `rs!` record per strategy, with the strategy's token. The
 * manager's `getDeposits(staker)` lists the strategies the staker holds shares in and the shares, in
 * one call (`stakerStrategyList` is a public array, read one index per call); then each strategy's
 * `underlyingToken()`, which is the token its `Deposit` events carry. Two round trips (one when the
 * wallet has none). A strategy whose shares are all withdrawn is gone from the list, so unlike the
 * indexer's record (kept once seen) it is not found; the shares read at request time would show
 * nothing for it anyway.
 */
export const findRestakeDeposits = async (
  context: DiscoveryContext,
  walletAddress: string,
): Promise<Findings> => {
  const wallet = walletAddress.toLowerCase();
  const managers = protocolsOf(context.chain)
    .filter((p) => p.kind === "restake")
    .map((p) => p.address);
  if (managers.length === 0) return NO_FINDINGS;
  const lists = await readAt(
    context,
    managers.map((manager) => rawCall(manager, "getDeposits(address)", wallet)),
  );
  const deposits = managers.flatMap((manager, i) => {
    const strategies = wordArray(lists[i], 0);
    const shares = wordArray(lists[i], 1);
    if (strategies === undefined || shares === undefined || shares.length !== strategies.length) return [];
    return strategies.flatMap((strategy, j) =>
      shares[j]! > 0n ? [{ manager, strategy: toAddress(strategy) }] : [],
    );
  });
  if (deposits.length === 0) return NO_FINDINGS;
  const strategies = [...new Set(deposits.map((d) => d.strategy))];
  const tokens = await readAt(
    context,
    strategies.map((strategy) => rawCall(strategy, "underlyingToken()")),
  );
  const tokenOf = new Map(strategies.map((strategy, i) => [strategy, addressWord(tokens[i], 0)]));
  const writes = deposits.flatMap(({ manager, strategy }) => {
    const token = tokenOf.get(strategy);
    if (token === undefined) return [];
    const record: RestakeDeposit = { token, block: context.block.number };
    return [[restakeDepositKey(wallet, context.chain.chain_id, manager, strategy), record] as const];
  });
  return { ops: (await addNewKeys(context.db, writes)).ops };
};
