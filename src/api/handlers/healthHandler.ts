import { Effect } from "effect";
import { ChainClients } from "../../chains/ChainClients.js";
import { Chains } from "../../chains/Chains.js";
import { health } from "../../contracts/Health.js";
import { ALL_ROLES } from "../../domain/Role.js";
import { Index } from "../../indexer/IndexReader.js";
import { IngestStatusBook } from "../../ingest/IngestStatusBook.js";
import { Presence } from "../../presence/Presence.js";
import { route } from "../Handler.js";
import { indexBehind } from "./indexBehind.js";

/** How long one probe of the chains is reused, so that /healthz polling never loads the RPC nodes. */
const PROBE_TTL_MS = 1_000;
const PROBE_TIMEOUT = "2 seconds";

interface ChainProbe {
  readonly chain_id: number;
  readonly name: string;
  readonly ok: boolean;
  readonly head_block?: number;
  readonly error?: string;
}

const probeChains = Effect.gen(function* () {
  const registry = yield* Chains;
  const clients = yield* ChainClients;
  return yield* Effect.forEach(
    registry.chains,
    (chain) => {
      const client = clients.get(chain.chain_id);
      const base = { chain_id: chain.chain_id, name: chain.name };
      if (client === undefined) return Effect.succeed<ChainProbe>({ ...base, ok: false, error: "no client" });
      return Effect.tryPromise(() => client.getBlockNumber({ cacheTime: 0 })).pipe(
        Effect.timeout(PROBE_TIMEOUT),
        Effect.map((block): ChainProbe => ({ ...base, ok: true, head_block: Number(block) })),
        Effect.catchAll((error) =>
          Effect.succeed<ChainProbe>({
            ...base,
            ok: false,
            error: `RPC does not answer: ${error.message}`.slice(0, 200),
          }),
        ),
      );
    },
    { concurrency: "unbounded" },
  );
});

/**
 * GET /healthz: 200 once every role has a live instance, every configured
 * chain's RPC answers, its history is read and this node's index has applied
 * what ingestion published (so balances are complete); otherwise 503 with the
 * reason and the same detail.
 * Built at start so the chain probe is shared and reused for PROBE_TTL_MS.
 */
export const makeHealthRoute = Effect.gen(function* () {
  const probe = yield* Effect.cachedWithTTL(probeChains, `${PROBE_TTL_MS} millis`);
  return route(health, () =>
    Effect.gen(function* () {
      const presence = yield* Presence;
      const ingest = yield* IngestStatusBook;
      const index = (yield* Index).reader;
      const probed = yield* probe;
      const indexed = yield* Effect.promise(() =>
        Promise.all(probed.map((chain) => index.checkpoint(chain.chain_id))),
      );
      const behind = new Set(
        probed
          .filter((chain, i) => indexBehind(ingest.get(chain.chain_id), indexed[i]))
          .map((chain) => chain.chain_id),
      );
      const chains = probed.map((chain, i) => {
        const status = ingest.get(chain.chain_id);
        const indexedBlock = indexed[i]?.number ?? null;
        return status === undefined
          ? { ...chain, indexed_block: indexedBlock }
          : {
              ...chain,
              ingest_mode: status.mode,
              processed_block: status.processed,
              indexed_block: indexedBlock,
              lag: status.lag,
              events_per_second: status.events_per_second,
            };
      });
      const roles = presence.liveInstances();
      const missingRoles = ALL_ROLES.filter((role) => (roles[role] ?? 0) === 0);
      const failing = chains.filter((chain) => !chain.ok);
      // No status yet: no ingest process has taken the chain's lease and started following it.
      const unfollowed = chains.filter((chain) => chain.ok && !("ingest_mode" in chain));
      // Balances are complete only once a chain's history is indexed.
      const catchingUp = chains.filter((chain) => "ingest_mode" in chain && chain.ingest_mode !== "live");
      // ...and once this node's index has applied what ingestion published.
      const indexing = chains.filter((chain) => behind.has(chain.chain_id));
      const reasons = [
        ...(missingRoles.length > 0 ? [`no live instance of role ${missingRoles.join(", ")}`] : []),
        ...(failing.length > 0
          ? [`chain ${failing.map((c) => `${c.name} (${c.chain_id})`).join(", ")} not answering`]
          : []),
        ...(unfollowed.length > 0
          ? [
              `chain ${unfollowed.map((c) => `${c.name} (${c.chain_id})`).join(", ")} not followed by ingest yet`,
            ]
          : []),
        ...(catchingUp.length > 0
          ? [`chain ${catchingUp.map((c) => `${c.name} (${c.chain_id})`).join(", ")} still reading history`]
          : []),
        ...(indexing.length > 0
          ? [`chain ${indexing.map((c) => `${c.name} (${c.chain_id})`).join(", ")} still being indexed`]
          : []),
      ];
      const ok = reasons.length === 0;
      return {
        cu: 0,
        status: ok ? 200 : 503,
        headers: { "Cache-Control": "no-store" },
        body: {
          status: ok ? "ok" : "starting",
          roles,
          chains,
          ...(ok ? {} : { reason: `${reasons.join("; ")}.` }),
        },
      };
    }),
  );
});
