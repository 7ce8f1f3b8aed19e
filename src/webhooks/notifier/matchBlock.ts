import type { ChainConfig } from "../../chains/ChainsConfig.js";
import { classifyBlock, decodeLogs } from "../../decoding/index.js";
import type { ChainBlock } from "../../domain/ChainBlock.js";
import { type PositionAlertDeps, positionAlerts } from "../alerts/positionAlerts.js";
import type { WebhookRecord } from "../WebhookRecord.js";
import { activityEvents } from "./activityEvents.js";
import { balanceEvents } from "./balanceEvents.js";
import { balanceTouches } from "./balanceTouches.js";
import { transactionMoves } from "./blockParties.js";
import { followsChain } from "./filters.js";
import type { BalanceRead } from "./readBalances.js";
import { transactionEvents } from "./transactionEvents.js";

/** What matching needs to know about webhooks and the chain. */
export interface MatchDeps {
  /** Webhook ids subscribed to an address (the address book, AddressBook.ts). */
  readonly webhooksFor: (address: string) => Iterable<string>;
  /** How many addresses some webhook subscribes to. */
  readonly watchedAddresses: () => number;
  /** The webhook as this node's actor holds it, or undefined when unknown or deleted. */
  readonly recordOf: (id: string) => WebhookRecord | undefined;
  /** Native and ERC-20 balances before and after the block (`wallet|token` keys). */
  readonly readBalances: (
    chain: ChainConfig,
    pairs: ReadonlyArray<{ readonly wallet: string; readonly token: string }>,
    block: { readonly number: number; readonly hash: string; readonly parent_hash: string },
  ) => Promise<ReadonlyMap<string, BalanceRead>>;
  readonly publicUrl: string;
  /** Position alerts (`positions` webhooks); none are evaluated without them. */
  readonly positions?: PositionAlertDeps | undefined;
}

/** The events of one block for one webhook. */
export interface Matched {
  readonly record: WebhookRecord;
  readonly events: ReadonlyArray<object>;
}

/**
 * Every active webhook with events in this block: those of the block's movements (matchMovements)
 * and the alerts of `positions` webhooks, which come from state the block changed rather than
 * from the wallets it involves (alerts/positionAlerts.ts).
 */
export const matchBlock = async (
  deps: MatchDeps,
  chain: ChainConfig,
  block: ChainBlock,
): Promise<ReadonlyArray<Matched>> => {
  if (deps.watchedAddresses() === 0) return [];
  const [moved, alerts] = await Promise.all([
    matchMovements(deps, chain, block),
    deps.positions === undefined ? [] : positionAlerts(deps.positions, chain, block),
  ]);
  return [...moved, ...alerts];
};

/**
 * Every active webhook that follows this chain and subscribes to an address
 * the block involves, with the events of its type that pass its filters
 * (webhooks with none are left out). Logs are decoded once; balances of every
 * `balances` webhook are read together (two multicalls). `positions` webhooks
 * are not matched by the wallets a block involves.
 */
const matchMovements = async (
  deps: MatchDeps,
  chain: ChainConfig,
  block: ChainBlock,
): Promise<ReadonlyArray<Matched>> => {
  // No address to match: nothing to decode either (a deployment with no webhook, or catching up
  // before any is made, pays nothing per block here).
  if (deps.watchedAddresses() === 0) return [];
  const events = decodeLogs(block.logs);
  const wrapped = chain.wrapped_native;
  const moves = transactionMoves(block, wrapped, events);
  const activities = classifyBlock(block, wrapped === undefined ? {} : { wrappedNative: wrapped }, events);
  const involved = new Set<string>();
  for (const { tx, movements } of moves) {
    involved.add(tx.from);
    const target = tx.to ?? tx.contract_address;
    if (target !== null) involved.add(target);
    for (const m of movements) involved.add(m.from).add(m.to);
  }
  for (const activity of activities) involved.add(activity.wallet_address);
  const byWebhook = new Map<string, Set<string>>();
  for (const address of involved)
    for (const id of deps.webhooksFor(address)) {
      const set = byWebhook.get(id) ?? new Set<string>();
      set.add(address);
      byWebhook.set(id, set);
    }
  const followers = [...byWebhook].flatMap(([id, addresses]) => {
    const record = deps.recordOf(id);
    return record?.active && record.type !== "positions" && followsChain(record, block.chain_id)
      ? [{ record, addresses }]
      : [];
  });
  if (followers.length === 0) return [];

  const balanceFollowers = followers.filter((f) => f.record.type === "balances");
  const allBalanceAddresses = new Set(balanceFollowers.flatMap((f) => [...f.addresses]));
  const touches = balanceTouches(moves, allBalanceAddresses);
  const reads =
    touches.size === 0
      ? new Map<string, BalanceRead>()
      : await deps.readBalances(chain, [...touches.values()], block);

  return followers
    .map(({ record, addresses }): Matched => {
      const found =
        record.type === "transactions"
          ? transactionEvents(chain, block, moves, record, addresses)
          : record.type === "activities"
            ? activityEvents(activities, record, addresses)
            : balanceEvents(block, touches, reads, record, addresses, deps.publicUrl);
      return { record, events: found };
    })
    .filter((matched) => matched.events.length > 0);
};
