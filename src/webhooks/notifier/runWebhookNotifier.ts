import type { JetStreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect, Option } from "effect";
import { ChainClients } from "../../chains/ChainClients.js";
import { Chains } from "../../chains/Chains.js";
import { aggregate3 } from "../../chains/multicall3.js";
import { Discovery } from "../../discovery/Discovery.js";
import { Index } from "../../indexer/IndexReader.js";
import { promiseLog } from "../../lib/promiseLog.js";
import { Metrics } from "../../metrics/Metrics.js";
import { WATCH_CHECK_MS } from "../../nats/WatchProgress.js";
import { discoverPositions } from "../../positions/discoverPositions.js";
import { readChainPositions } from "../../positions/readChainPositions.js";
import { FactoryPools } from "../../pricing/FactoryPools.js";
import { Level } from "../../storage/Level.js";
import { WebhookSupervisor } from "../actors/WebhookSupervisor.js";
import { kvAlertStates } from "../alerts/AlertStates.js";
import { heldRangesCache, heldRangesOf } from "../alerts/heldRanges.js";
import { debtBook } from "../alerts/knownDebts.js";
import { positionWatchers } from "../alerts/positionWatchers.js";
import { readHealthFactors } from "../alerts/readHealthFactors.js";
import { valueChangeDeps } from "../alerts/valueChangeDeps.js";
import { type MarkedLists, markWatchedWallets, runWatchedWalletMarks } from "../alerts/watchedWalletMarks.js";
import { DeliveryOutbox } from "../delivery/DeliveryLayer.js";
import { migrateLocalBlockRecords } from "../migrations/migrateLocalBlockRecords.js";
import type { WebhookServiceSettings } from "../WebhookServiceSettings.js";
import { makeAddressBook } from "./AddressBook.js";
import { kvBlockRecords, streamPurge } from "./kvBlockRecords.js";
import { runNotifier } from "./Notifier.js";
import { readBalances } from "./readBalances.js";

/**
 * Starts this API process's notifier: the address book (a watch of the
 * webhooks' address lists in `webhooks`), then the shared durable consumer of CHAIN_EVENTS,
 * writing deliveries into the replicated outbox and block records into the
 * replicated `webhook_blocks` bucket.
 */
export const runWebhookNotifier = (
  nc: NatsConnection,
  webhooks: KV,
  blocks: KV,
  jsm: JetStreamManager,
  settings: Pick<WebhookServiceSettings, "publicUrl">,
) =>
  Effect.gen(function* () {
    const clients = yield* ChainClients;
    const { reader, wallets: indexedWallets } = yield* Index;
    const supervisor = yield* WebhookSupervisor;
    const outbox = yield* DeliveryOutbox;
    const book = yield* makeAddressBook(webhooks, WATCH_CHECK_MS);
    const log = yield* promiseLog;
    const records = kvBlockRecords(blocks, streamPurge(jsm), { warn: (message) => log.warning(message) });
    yield* migrateLocalBlockRecords(yield* Level, records);
    const metrics = Option.getOrUndefined(yield* Effect.serviceOption(Metrics));
    const pools = Option.getOrUndefined(yield* Effect.serviceOption(FactoryPools));
    const discovery = Option.getOrUndefined(yield* Effect.serviceOption(Discovery));
    const recordOf = (id: string) => supervisor.versionOf(id)?.record;
    const clientOf = (chainId: number) => {
      const client = clients.get(chainId);
      if (client === undefined) throw new Error(`no RPC client for chain ${chainId}`);
      return client;
    };
    const registry = yield* Chains;
    const watchers = positionWatchers(book, recordOf);
    // Recorded before the first block is evaluated, then kept so from the address book.
    const marks = { chains: registry.chains, watchers, wallets: indexedWallets };
    const marked: MarkedLists = new Map();
    yield* markWatchedWallets(marks, marked);
    yield* Effect.forkScoped(runWatchedWalletMarks(marks, marked));
    yield* Effect.forkScoped(
      runNotifier({
        nc,
        registry,
        deps: {
          records,
          webhooksFor: book.webhooksFor,
          watchedAddresses: book.watchedAddresses,
          recordOf,
          readBalances: (chain, pairs, block) => {
            const client = clients.get(chain.chain_id);
            if (client === undefined)
              return Promise.reject(new Error(`no RPC client for chain ${chain.chain_id}`));
            return readBalances(client, reader, chain, pairs, block, pools);
          },
          publicUrl: settings.publicUrl,
          positions: {
            watchers,
            readHealth: async (chain, accounts, block) =>
              readHealthFactors(clientOf(chain.chain_id), accounts, block),
            readPositions: async (chain, wallet, block) =>
              readChainPositions(clientOf(chain.chain_id), reader, {
                chain,
                wallet,
                block,
                publicUrl: settings.publicUrl,
                pools,
                // Owners at the block read say nothing of the index's records of today's owners.
                past: true,
              }),
            readCalls: async (chain, calls, block) => aggregate3(clientOf(chain.chain_id), calls, { block }),
            ranges: heldRangesCache(
              async (chain, wallet) =>
                heldRangesOf(chain, (await discoverPositions(reader, chain, wallet)).nfts),
              discovery,
            ),
            debts: debtBook(),
            lendingToken: async (chainId, token) => (await reader.lendingTokens(chainId, [token]))[0],
            states: kvAlertStates(blocks, yield* promiseLog),
            values: valueChangeDeps(blocks, reader, discovery),
          },
          now: () => Date.now(),
        },
        // A retraction for an inactive webhook is stored to wait for its reactivation, not attempted.
        enqueue: (deliveries, options) =>
          outbox.queueEvent(deliveries, { ...options, inactive: (id) => recordOf(id)?.active !== true }),
        markDelivered: outbox.markDelivered,
        observe: metrics?.notifierPlanned,
      }),
    );
  });
