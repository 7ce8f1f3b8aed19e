import type { ChainConfig } from "../../src/chains/ChainsConfig.js";
import {
  BLOCK_MESSAGE_VERSION,
  ChainBlock,
  ChainReorg,
  ChainTransaction,
} from "../../src/domain/ChainBlock.js";
import type { BlockRecordStore } from "../../src/webhooks/notifier/BlockRecords.js";
import { EventSlots } from "../../src/webhooks/notifier/enqueue.js";
import { type PlanDeps, planBlock, planReorg } from "../../src/webhooks/notifier/planNotifications.js";
import { blockHash } from "./indexerBlocks.js";
import { webhookRecord } from "./webhookRecordFixture.js";

/* Webhook planning as one notifier does it, over a given block record store: webhook `W` watches WALLET. */

export const WALLET = "0x00000000000000000000000000000000000000aa";
const OTHER = "0x00000000000000000000000000000000000000bb";

export const webhook = (id: string, active = true) =>
  webhookRecord({ id, name: id, type: "transactions", active });

/** Block `number` of chain 1; `payWallet` adds a native transfer from the watched wallet. */
export const block = (number: number, payWallet: boolean, hash = blockHash(number)) =>
  ChainBlock.make({
    version: BLOCK_MESSAGE_VERSION,
    chain_id: 1,
    number,
    hash,
    parent_hash: blockHash(number - 1),
    timestamp: 1_700_000_000 + number * 12,
    source: "live",
    transactions: payWallet
      ? [
          ChainTransaction.make({
            hash: `0x${number.toString(16).padStart(64, "0")}`,
            index: 0,
            from: WALLET,
            to: OTHER,
            value: "1000",
            input: "0x",
            nonce: number,
            type: 2,
            success: true,
            gas_used: "21000",
            effective_gas_price: "1",
            contract_address: null,
          }),
        ]
      : [],
    logs: [],
    internal_transfers: null,
  });

/** A notifier's planning over `store`, with webhook `W` watching WALLET; `hooks` lets a test deactivate it. */
export const planner = (store: BlockRecordStore) => {
  const hooks = new Map([["W", webhook("W")]]);
  /** Addresses watched: WALLET (1), or none when a test sets 0. */
  const watched = { count: 1 };
  const deps: PlanDeps = {
    records: store,
    webhooksFor: (address) => (address === WALLET && watched.count > 0 ? ["W"] : []),
    watchedAddresses: () => watched.count,
    recordOf: (id) => hooks.get(id),
    readBalances: () => Promise.reject(new Error("no balances webhook here")),
    publicUrl: "http://localhost",
    now: () => 1_700_000_000_000,
  };
  let seq = 0;
  /** Plans one event as the notifier does: deliveries first, the added block's events, then the list. */
  const apply = async (chain: ChainConfig, event: ChainBlock | ChainReorg) => {
    const slots = new EventSlots(0, ++seq);
    const plan =
      event instanceof ChainReorg
        ? await planReorg(deps, chain, event, slots)
        : await planBlock(deps, chain, event, slots);
    const change = plan.records;
    if (change !== undefined)
      await store.write(
        change,
        change.added === undefined ? undefined : await store.writeEvents(change.chainId, change.added),
      );
    return plan.deliveries.map((d) => ({ block: d.block_number, removed: d.removed, webhook: d.webhook_id }));
  };
  return { apply, hooks, store, deps, watched };
};

/** A reorg removing `numbers` (highest first, as ingestion publishes them). */
export const reorg = (numbers: ReadonlyArray<number>) =>
  ChainReorg.make({
    version: BLOCK_MESSAGE_VERSION,
    chain_id: 1,
    common_ancestor: { number: Math.min(...numbers) - 1, hash: blockHash(Math.min(...numbers) - 1) },
    removed: numbers.map((number) => ({ number, hash: blockHash(number) })),
  });
