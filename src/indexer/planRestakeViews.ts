import { type ChainConfig, protocolsOf } from "../chains/ChainsConfig.js";
import type { DecodedEvent } from "../decoding/index.js";
import type { Operation } from "../storage/Level.js";
import { addNewKeys } from "./addNewKeys.js";
import type { RestakeDeposit, UndoEntry } from "./IndexRecords.js";
import { restakeDepositKey } from "./indexKeys.js";
import type { IndexReads } from "./PendingWrites.js";

/**
 * The writes that record stakers' deposits into restaking strategies: `Deposit` events of registry
 * StrategyManagers (kind `restake`) only, each (staker, strategy) once with the strategy's token.
 * Keys are only ever added, so undo deletes what a block added.
 */
export const planRestakeViews = async (
  db: IndexReads,
  chain: ChainConfig,
  blockNumber: number,
  events: ReadonlyArray<DecodedEvent>,
): Promise<{ readonly ops: ReadonlyArray<Operation>; readonly undo: ReadonlyArray<UndoEntry> }> => {
  const managers = new Set(
    protocolsOf(chain)
      .filter((p) => p.kind === "restake")
      .map((p) => p.address),
  );
  if (managers.size === 0) return { ops: [], undo: [] };
  const deposits = new Map<string, RestakeDeposit>();
  for (const event of events)
    if (event.kind === "restake.deposit" && managers.has(event.address))
      deposits.set(restakeDepositKey(event.staker, chain.chain_id, event.address, event.strategy), {
        token: event.token,
        block: blockNumber,
      });
  return addNewKeys(db, [...deposits]);
};
