import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { ChainBlock } from "../../src/domain/ChainBlock.js";
import type { Checkpoint } from "../../src/ingest/CheckpointStore.js";
import { type EncodedBlock, encodeBlock } from "../../src/ingest/encodedBlock.js";
import { initialStatus, RateMeter } from "../../src/ingest/FollowerStatus.js";
import { acquireLease, type HeldLease } from "../../src/ingest/lease/ChainLease.js";
import { kvLeaseStore } from "../../src/ingest/lease/LeaseStore.js";
import { makePublishedWindow } from "../../src/ingest/publishedWindow.js";
import { testChainConfig } from "./chainConfigFixture.js";
import { collectChainEvents } from "./chainEvents.js";
import { blockWithLogs } from "./indexerBlocks.js";

/** Block `n` of the other branch, on top of `parent`. */
export const branchB = (n: number, parent: string) =>
  ChainBlock.make({
    ...blockWithLogs(n, []),
    hash: `0x${"bb"}${n.toString(16).padStart(62, "0")}`,
    parent_hash: parent,
  });

export const encode = (block: ChainBlock): EncodedBlock => encodeBlock(block, 1024 * 1024);

/**
 * Chain 1's published window over a real nats-server, as its follower holds it: CHAIN_EVENTS (with
 * the service's two-minute duplicate window), the `chain_leases` bucket, and a consumer of what is
 * published. `asFollower` runs steps holding the chain's lease, from the checkpoint the lease holds
 * (or `initial`); `canonicalHash` is what the node names at each height, for ancestor searches.
 */
export const publishedWindowOn = async (
  nc: NatsConnection,
  canonicalHash: (n: number) => Promise<string | undefined>,
) => {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: "CHAIN_EVENTS", subjects: ["chain.>"], duplicate_window: 120_000_000_000 });
  const events = await collectChainEvents(nc);
  const chain = testChainConfig();
  const store = kvLeaseStore(await new Kvm(nc).create("chain_leases"));
  const asFollower = <A, E>(
    initial: Checkpoint,
    steps: (published: ReturnType<typeof makePublishedWindow>) => Effect.Effect<A, E>,
    /** What the window saves through (a lease whose saves fail, say). */
    through: (lease: HeldLease) => HeldLease = (lease) => lease,
  ) =>
    Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const lease = yield* acquireLease(store, "chain.1", "test", { leaseMs: 60_000 });
          const published = makePublishedWindow(
            {
              chain,
              js: jetstream(nc),
              lease: through(lease),
              status: initialStatus(1, chain.name),
              meter: new RateMeter(),
              canonicalHash,
            },
            lease.checkpoint ?? initial,
          );
          return yield* steps(published);
        }),
      ),
    );
  return { events, asFollower };
};

/** What consumers were shown, block by block: each block's hash, each reorg's removed hashes. */
export const shownEvents = (events: Awaited<ReturnType<typeof collectChainEvents>>) =>
  events.events.map((event) =>
    event.kind === "block"
      ? { kind: "block", hash: event.block.hash }
      : { kind: "reorg", removed: event.reorg.removed.map((r) => r.hash) },
  );
