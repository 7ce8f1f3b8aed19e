import { Effect } from "effect";
import { ChainClients } from "../../chains/ChainClients.js";
import { Chains } from "../../chains/Chains.js";
import { chainNodeStatus } from "../../chains/rpc/endpointStatus.js";
import { InvalidRequest } from "../../contracts/ApiError.js";
import { health } from "../../contracts/Health.js";
import { Discovery } from "../../discovery/Discovery.js";
import { discoveryCounts } from "../../discovery/discoveryCounts.js";
import { registryBackfillStatus } from "../../discovery/registryBackfillStatus.js";
import { ALL_ROLES } from "../../domain/Role.js";
import { Index } from "../../indexer/IndexReader.js";
import { IngestStatusBook } from "../../ingest/IngestStatusBook.js";
import { Presence } from "../../presence/Presence.js";
import { route } from "../Handler.js";
import { indexBehind } from "./health/indexBehind.js";
import { type ChainFacts, judgeChain, judgeService } from "./health/judgeHealth.js";

const unknownChain = (given: string) =>
  new InvalidRequest({
    code: "INVALID_CHAIN_ID",
    message: `chain_id must be the id of a chain this service serves (see /v1/evm/supported-chains); "${given.slice(0, 20)}" is not.`,
  });

/**
 * GET /healthz: the service's readiness from this API worker's view, with no RPC call of its own
 * (each chain's endpoints are watched by its monitor, ChainMonitor.ts). 200 `ok` when every role
 * has a live instance and every chain's node answers with a complete index; 200 `degraded` when
 * some chains' nodes all fail and the rest are ready; 503 `starting` while a role is missing or a
 * chain catches up; 503 `down` when no chain's node answers. `?chain_id=` answers for one chain.
 */
export const healthRoute = route(health, ({ query }) =>
  Effect.gen(function* () {
    const registry = yield* Chains;
    const clients = yield* ChainClients;
    const presence = yield* Presence;
    const ingest = yield* IngestStatusBook;
    const { reader: index, wallets: indexedWallets } = yield* Index;
    const discovery = yield* Discovery;
    const discovered = discovery.stats();
    const only = query.chain_id === undefined ? undefined : registry.byId.get(Number(query.chain_id));
    if (query.chain_id !== undefined && (only === undefined || !/^\d+$/.test(query.chain_id)))
      return yield* unknownChain(query.chain_id);
    const chains = only === undefined ? registry.chains : [only];
    const indexed = yield* Effect.promise(() =>
      Promise.all(chains.map((chain) => index.checkpoint(chain.chain_id).catch(() => undefined))),
    );
    const now = Date.now();
    const discoveryOf = (chainId: number) => {
      const indexedFrom = ingest.get(chainId)?.indexed_from;
      const counts = discoveryCounts(discovered.get(chainId), indexedFrom, indexedWallets.partialOn(chainId));
      const registry = registryBackfillStatus(discovery.registryProgress(chainId), indexedFrom);
      return {
        ...(counts === undefined ? {} : { discovery: counts }),
        ...(registry === undefined ? {} : { registry_backfill: registry }),
      };
    };
    const judged = chains.map((chain, i) => {
      const rpc = clients.get(chain.chain_id);
      const status = ingest.get(chain.chain_id);
      const facts: ChainFacts = {
        chainId: chain.chain_id,
        name: chain.name,
        node:
          rpc === undefined
            ? { state_from_block: null, logs_from_block: null, traces: null, endpoints: [] }
            : chainNodeStatus(rpc, now),
        ingest: status,
        indexBehind: indexBehind(status, indexed[i]),
      };
      return {
        facts,
        verdict: judgeChain(facts),
        head: rpc?.bestHead(),
        indexed: indexed[i]?.number ?? null,
      };
    });
    const roles = presence.liveInstances();
    const missingRoles = ALL_ROLES.filter((role) => (roles[role] ?? 0) === 0);
    const service = judgeService(missingRoles, judged);
    const body = judged.map(({ facts, verdict, head, indexed: indexedBlock }) => {
      const status = facts.ingest;
      const recorded = indexedWallets.recordedWallets(facts.chainId);
      return {
        chain_id: facts.chainId,
        name: facts.name,
        ok: verdict.answers,
        ready: verdict.ready,
        ...(verdict.reason === undefined ? {} : { reason: verdict.reason }),
        ...(head === undefined ? {} : { head_block: head }),
        ...(verdict.down && verdict.reason !== undefined ? { error: verdict.reason } : {}),
        indexed_block: indexedBlock,
        ...(status === undefined
          ? {}
          : {
              ingest_mode: status.mode,
              processed_block: status.processed,
              lag: status.lag,
              events_per_second: status.events_per_second,
              ...(status.traces === undefined ? {} : { traces: status.traces }),
              ...(status.history_skipped === undefined ? {} : { history_skipped: status.history_skipped }),
              ...(status.blocks_skipped === undefined ? {} : { blocks_skipped: status.blocks_skipped }),
              ...(status.blocks_untraced === undefined ? {} : { blocks_untraced: status.blocks_untraced }),
            }),
        node: facts.node,
        ...discoveryOf(facts.chainId),
        // A chain indexed for discovered wallets only: how many this worker's index records.
        ...(recorded === undefined ? {} : { indexed_wallets: recorded }),
      };
    });
    // With `chain_id` the judgement is that one chain's (`chains` holds only it).
    const { state, reason } = service;
    const degraded = judged.filter((c) => c.verdict.down).map((c) => c.facts.chainId);
    return {
      cu: 0,
      status: state === "ok" || state === "degraded" ? 200 : 503,
      headers: { "Cache-Control": "no-store" },
      body: {
        status: state,
        roles,
        chains: body,
        ...(state === "degraded" ? { degraded_chains: degraded } : {}),
        ...(state === "ok" || reason === undefined ? {} : { reason }),
      },
    };
  }),
);
