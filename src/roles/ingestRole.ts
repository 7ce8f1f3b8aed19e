import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { jetstream } from "@nats-io/jetstream";
import { Effect, Option } from "effect";
import { AppConfig } from "../AppConfig.js";
import { ChainClients } from "../chains/ChainClients.js";
import { Chains } from "../chains/Chains.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import { chainNodeStatus } from "../chains/rpc/endpointStatus.js";
import { followChain } from "../ingest/ChainFollower.js";
import { loadCheckpoint } from "../ingest/CheckpointStore.js";
import { type FollowerStatus, initialStatus } from "../ingest/FollowerStatus.js";
import { kvLeaseStore } from "../ingest/lease/LeaseStore.js";
import { leadChain } from "../ingest/lease/leadChain.js";
import { Metrics } from "../metrics/Metrics.js";
import { awaitStream, bucketStream, managerOf, openBucket } from "../nats/JetStreamSetup.js";
import { NatsConnections } from "../nats/NatsConnections.js";
import { heartbeat } from "../presence/Presence.js";
import { Level } from "../storage/Level.js";

/** How often each follower's status is written to the `ingest_status` bucket. */
const STATUS_EVERY = "1 second";

/**
 * The ingest role: one follower per configured chain, each in its own fiber
 * (a chain whose node is down retries on its own without holding up others),
 * publishing to CHAIN_EVENTS as the `ingest` user. Each chain is followed only
 * while this process holds its lease in `chain_leases`, so several ingest
 * processes may serve the same chains: one follows each chain, the others
 * stand by (src/ingest/lease/). Starts once the stream and the buckets it
 * writes exist (only the `provision` user creates them).
 */
export const ingestRole = Effect.gen(function* () {
  const nc = yield* (yield* NatsConnections).get("ingest");
  const jsm = yield* managerOf(nc);
  yield* awaitStream(jsm, "CHAIN_EVENTS");
  // Heartbeats and status are plain publishes into these buckets: without them they would be lost.
  yield* awaitStream(jsm, bucketStream("presence"));
  yield* awaitStream(jsm, bucketStream("ingest_status"));
  const js = jetstream(nc);
  const leases = kvLeaseStore(yield* openBucket(nc, "chain_leases"));
  const timing = { leaseMs: (yield* AppConfig).ingestLeaseMs };
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const registry = yield* Chains;
  const clients = yield* ChainClients;
  const db = yield* Level;
  const statuses: Array<FollowerStatus> = [];
  const rpcs = new Map<number, ChainRpc>();
  // Chains this process follows now: only their statuses are published (a standby's would be stale).
  const leading = new Set<number>();
  for (const chain of registry.chains) {
    const rpc = clients.get(chain.chain_id);
    if (rpc === undefined) continue;
    rpcs.set(chain.chain_id, rpc);
    const status = initialStatus(chain.chain_id, chain.name);
    statuses.push(status);
    yield* Effect.forkScoped(
      leadChain({
        store: leases,
        chainId: chain.chain_id,
        owner,
        timing,
        onLeading: (now) =>
          Effect.sync(() => {
            if (now) {
              leading.add(chain.chain_id);
              Object.assign(status, initialStatus(chain.chain_id, chain.name));
            } else leading.delete(chain.chain_id);
            // Say at once that the chain's follower changed: a new holder starts from "starting", and
            // one that stops leaves "starting" behind, not its last live figures, which /healthz
            // would take for a live follower until another process took the lease.
            const said = now ? status : { ...status, mode: "starting", updated_at: new Date().toISOString() };
            try {
              nc.publish(`$KV.ingest_status.${chain.chain_id}`, JSON.stringify(said));
            } catch {
              // The connection is already closing (the process is stopping): nothing to tell.
            }
          }),
        follow: (lease) =>
          Effect.flatMap(loadCheckpoint(db, chain.chain_id), (legacyCheckpoint) =>
            followChain({
              chain,
              rpc,
              capabilities: clients.capabilities(chain.chain_id),
              js,
              lease,
              legacyCheckpoint,
              status,
              pollMs: chain.ws_url === undefined ? 250 : 1_000,
              historyRange: 500,
              prefetch: 8,
              catchUpRange: 32,
              maxPayload: nc.info?.max_payload ?? 1024 * 1024,
            }),
          ),
      }).pipe(Effect.annotateLogs({ chain: chain.chain_id })),
    );
  }
  const publishStatus = Effect.sync(() => {
    const now = Date.now();
    for (const status of statuses) {
      if (!leading.has(status.chain_id)) continue;
      const rpc = rpcs.get(status.chain_id);
      status.node = rpc === undefined ? undefined : chainNodeStatus(rpc, now);
      nc.publish(`$KV.ingest_status.${status.chain_id}`, JSON.stringify(status));
    }
  });
  yield* Effect.forkScoped(Effect.forever(Effect.zipRight(publishStatus, Effect.sleep(STATUS_EVERY))));
  const metrics = yield* Effect.serviceOption(Metrics);
  if (Option.isSome(metrics)) metrics.value.watchFollowers(statuses);
  if (Option.isSome(metrics)) metrics.value.watchRpc(() => clients.all());
  yield* heartbeat(nc, "ingest");
  return statuses;
});
