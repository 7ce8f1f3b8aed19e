import type { JetStreamClient } from "@nats-io/jetstream";
import { Effect } from "effect";
import type { ChainConfig } from "../chains/ChainsConfig.js";
import { faultError } from "../chains/rpc/ChainRpcError.js";
import { BLOCK_MESSAGE_VERSION, ChainReorg } from "../domain/ChainBlock.js";
import { publishBlocks, publishReorg } from "./BlockPublisher.js";
import type { Checkpoint } from "./CheckpointStore.js";
import type { EncodedBlock } from "./encodedBlock.js";
import type { FollowerStatus, RateMeter } from "./FollowerStatus.js";
import type { HeldLease } from "./lease/ChainLease.js";
import { ChainEventsReadError, type PublishedAfter, takeIn } from "./publishedAfter.js";
import {
  type BlockRef,
  type BlockWindow,
  extend,
  findCommonAncestor,
  reconcile,
  rewind,
} from "./reconcile.js";

export interface PublishedWindowOptions {
  readonly chain: ChainConfig;
  readonly js: JetStreamClient;
  /** Checked before every publish, and where the checkpoint is saved. */
  readonly lease: HeldLease;
  readonly status: FollowerStatus;
  readonly meter: RateMeter;
  /** The hash of the node's block at a height, or undefined when it has none (or cannot say). */
  readonly canonicalHash: (n: number) => Promise<string | undefined>;
}

/**
 * What a chain's follower has published, as its checkpoint holds it (the unfinalised window and
 * where history reading stands), and the only ways it moves: blocks that extend the window,
 * a reorg rewinding it, history the nodes no longer keep skipped. Each move is published to
 * CHAIN_EVENTS under the lease's fence and then saved into the lease, and shown in the status.
 */
export const makePublishedWindow = (options: PublishedWindowOptions, initial: Checkpoint) => {
  const { chain, js, lease, status } = options;
  const chainId = chain.chain_id;
  let checkpoint = initial;

  /** What operators and /healthz see as published: the window's tip. */
  const showProcessed = () => {
    const tip = checkpoint.window.at(-1);
    if (tip === undefined) return;
    status.processed = tip.number;
    status.processed_hash = tip.hash;
    status.processed_parent_hash = tip.parentHash;
  };
  status.indexed_from = checkpoint.indexedFrom ?? checkpoint.start;
  showProcessed();

  /**
   * Saves `next` into the lease, and only then holds it. A step whose save failed has published what
   * the saved checkpoint does not name: the follower takes that in again before its next step
   * (`adoptPublished`, ChainFollower.ts), so nothing more is published until a save succeeds.
   */
  const save = (next: Checkpoint) =>
    Effect.gen(function* () {
      yield* lease.save(next);
      checkpoint = next;
    });

  const commit = (blocks: ReadonlyArray<EncodedBlock>, window: BlockWindow) =>
    Effect.gen(function* () {
      yield* lease.fence;
      const seq = yield* publishBlocks(js, blocks, checkpoint.reorgs ?? 0);
      yield* save({ ...checkpoint, window, ...(seq === undefined ? {} : { seq }) });
      let logs = 0;
      for (const block of blocks) logs += block.logs;
      options.meter.add(logs);
      status.blocks_published += blocks.length;
      showProcessed();
    });

  /** Reads what CHAIN_EVENTS holds of the chain; a failure fails the step, which is tried again. */
  const readBack = <A>(what: string, read: () => Promise<A>) =>
    Effect.tryPromise({ try: read, catch: (cause) => new ChainEventsReadError({ what, cause }) });

  /**
   * Publishes the reorg and rewinds the window to the common ancestor. A reorg
   * deeper than the window removes the whole window: consumers revert all of
   * it and the window's range is read again from the node's chain.
   */
  const handleFork = Effect.gen(function* () {
    const window = checkpoint.window;
    const oldest = window[0];
    if (oldest === undefined) return;
    const search = yield* Effect.promise(() => findCommonAncestor(window, options.canonicalHash));
    // Nothing is published on a guess: the step fails and is tried again on its schedule.
    if (search === "unknown")
      return yield* Effect.fail(
        faultError(chainId, "eth_getBlockByNumber", {
          reason: "Unavailable",
          detail:
            "a reorg's common ancestor could not be found: the node named no block at a height of the window",
        }),
      );
    // The node names the window's tip as canonical although a block that does not build on it was
    // just read: two endpoints (or a load balancer's backends) on different forks. There is nothing
    // to remove; publishing an empty reorg would only loop. The step fails and is tried again,
    // by when the nodes agree (a new block's parent hash, or the tip replaced, settles it).
    if (search !== undefined && search.removed.length === 0)
      return yield* Effect.fail(
        faultError(chainId, "eth_getBlockByNumber", {
          reason: "Unavailable",
          detail: `a block that does not build on block ${search.ancestor.number} was read, but the node names that block canonical: endpoints on different forks`,
        }),
      );
    const found = search ?? {
      ancestor: { number: oldest.number - 1, hash: oldest.parentHash, parentHash: "" },
      removed: [...window].reverse(),
    };
    if (found.ancestor.number < oldest.number) {
      yield* Effect.logError(
        `chain ${chainId}: reorg deeper than the ${window.length}-block window; re-reading it`,
      );
    }
    yield* publishReorgTo(found);
  });

  /**
   * Publishes a reorg removing `found.removed` (highest first) back to `found.ancestor`, and rewinds
   * the window to the ancestor (empties it, reading on from the window's first block, when the
   * ancestor is below the window).
   */
  const publishReorgTo = (
    found: { readonly ancestor: BlockRef; readonly removed: ReadonlyArray<BlockRef> },
    /** The checkpoint the reorg follows: the one held, or one taken in and not yet saved. */
    base: Checkpoint = checkpoint,
  ) =>
    Effect.gen(function* () {
      const window = base.window;
      const oldest = window[0]?.number ?? found.ancestor.number + 1;
      yield* lease.fence;
      const ack = yield* publishReorg(
        js,
        ChainReorg.make({
          version: BLOCK_MESSAGE_VERSION,
          chain_id: chainId,
          common_ancestor: { number: found.ancestor.number, hash: found.ancestor.hash },
          removed: found.removed.map((ref) => ({ number: ref.number, hash: ref.hash })),
        }),
        base.reorgs ?? 0,
      );
      // Saved with the reorg: a crash before the save publishes it again under the same id (dropped
      // as a duplicate), and the blocks after it under the new epoch.
      const reorgs = (base.reorgs ?? 0) + 1;
      yield* save(
        found.ancestor.number < oldest
          ? { ...base, reorgs, seq: ack.seq, window: [], start: oldest }
          : { ...base, reorgs, seq: ack.seq, window: rewind(window, found.ancestor) },
      );
      status.processed = found.ancestor.number;
      status.processed_hash = found.ancestor.hash;
      // Unknown when the reorg went deeper than the window (the ancestor is only a parent hash then).
      status.processed_parent_hash = found.ancestor.parentHash === "" ? null : found.ancestor.parentHash;
      status.reorgs++;
      yield* Effect.logWarning(
        `chain ${chainId}: reorg of ${found.removed.length} block(s) above ${found.ancestor.number}`,
      );
    });

  /** Warnings of the read-back, said once a follower's run rather than at every failed step's retry. */
  const warnedOnce = new Set<"trimmed" | "refused">();

  /**
   * What was published after the saved checkpoint, taken in as published. A holder publishes a
   * step's blocks and then saves; one stopped between the two left blocks that consumers applied and
   * the checkpoint does not name. Read back from CHAIN_EVENTS, they join the window (a reorg among
   * them rewinds it and counts in the epoch), so the next block read is checked against them: if
   * the chain reorganised away from some while no process followed it, the usual fork handling
   * removes exactly those (checkTip at the head, a parent hash behind it). Read on from the
   * checkpoint instead, the new branch's blocks would reach the index at heights it applied already,
   * which it skips, keeping the orphaned blocks for good. A checkpoint that names no sequence of this
   * stream (a first start, an earlier version's, CHAIN_EVENTS made again) is given the stream's last
   * sequence, from which the next holder reads. A server whose permissions refuse ingest the read
   * (a nats.conf older than this version) is told in the log and the check left out. Answers how
   * many events it took in.
   */
  const adoptPublished = (read: PublishedAfter) =>
    Effect.gen(function* () {
      const stream = yield* readBack("the stream's state", read.state);
      const after = checkpoint.seq;
      if (after === undefined || checkpoint.stream !== stream.created) {
        if (checkpoint.stream !== undefined)
          yield* Effect.logWarning(
            `chain ${chainId}: CHAIN_EVENTS was made again since the checkpoint was saved; what was published after it cannot be read back`,
          );
        yield* save({ ...checkpoint, seq: stream.lastSeq, stream: stream.created });
        return 0;
      }
      if (stream.firstSeq > after + 1 && !warnedOnce.has("trimmed")) {
        warnedOnce.add("trimmed");
        yield* Effect.logWarning(
          `chain ${chainId}: CHAIN_EVENTS no longer holds messages ${after + 1}-${stream.firstSeq - 1}, after the saved checkpoint; blocks published there without being saved cannot be checked`,
        );
      }
      const events = yield* readBack("what was published after the checkpoint", () =>
        read.events(after),
      ).pipe(
        Effect.catchIf(
          (error) => String(error.cause).includes("Permissions Violation"),
          (error) =>
            Effect.as(
              warnedOnce.has("refused")
                ? Effect.void
                : Effect.zipRight(
                    Effect.sync(() => warnedOnce.add("refused")),
                    Effect.logWarning(
                      `chain ${chainId}: blocks published after the saved checkpoint are not checked: ${String(error.cause)} (grant ingest $JS.API.STREAM.MSG.GET.CHAIN_EVENTS, as nats.conf does)`,
                    ),
                  ),
              [],
            ),
        ),
      );
      if (events.length === 0) return 0;
      const { taken, stray } = takeIn(checkpoint, events, chain.finality_depth);
      yield* Effect.logWarning(
        `chain ${chainId}: took in ${events.length} chain event(s) published after the saved checkpoint (their holder stopped, or its save failed, before saving them); the window's tip is now ${taken.window.at(-1)?.number ?? taken.start - 1}`,
      );
      if (stray.length === 0) {
        yield* save(taken);
        showProcessed();
        return events.length;
      }
      // Removed before anything is saved: a failure here leaves the read-back to find them again.
      const tip = taken.window.at(-1);
      const below = tip?.number ?? taken.start - 1;
      const hash = tip?.hash ?? (yield* Effect.promise(() => options.canonicalHash(below)));
      if (hash === undefined)
        return yield* Effect.fail(
          faultError(chainId, "eth_getBlockByNumber", {
            reason: "Unavailable",
            detail: `block ${below}, below blocks stored out of order, is not named by the node`,
          }),
        );
      yield* Effect.logError(
        `chain ${chainId}: blocks ${stray.map((ref) => ref.number).join(", ")} were stored after block ${below + 1}, which was not: they are removed and published again in order`,
      );
      yield* publishReorgTo(
        { ancestor: tip ?? { number: below, hash, parentHash: "" }, removed: stray },
        taken,
      );
      return events.length;
    });

  return {
    /** The last block of history to read in bulk (blocks after it are read live). */
    historyUntil: () => checkpoint.historyUntil,

    /** The next block to read: above the window's tip, or the start when nothing was published. */
    next: () => (checkpoint.window.at(-1)?.number ?? checkpoint.start - 1) + 1,

    handleFork,

    adoptPublished,

    /**
     * History the nodes no longer keep is not read: the follower moves to `to`, says which blocks
     * it left out (log and status), and the index then has nothing of them, as for blocks before a
     * chain's start block.
     */
    skipHistory: (from: number, to: number) =>
      Effect.gen(function* () {
        yield* save({ ...checkpoint, window: [], start: to, indexedFrom: to });
        status.indexed_from = to;
        status.history_skipped = { from: status.history_skipped?.from ?? from, to: to - 1 };
        yield* Effect.logWarning(
          `chain ${chain.name} (${chainId}): the RPC endpoints keep logs from block ${to} only; blocks ${status.history_skipped.from} to ${to - 1} are not read, and the index has nothing of them`,
        );
      }),

    /**
     * Live blocks the nodes no longer keep (the chain was not followed, or followed too slowly, for
     * longer than their retention): the follower reads on from `to` with an empty window (nothing
     * older can be checked against a reorg) and says which blocks it left out (log and status). The
     * index then lacks them, finds the jump, and has discovery read its wallets again (Indexer.ts).
     */
    skipLive: (from: number, to: number) =>
      Effect.gen(function* () {
        yield* save({
          ...checkpoint,
          window: [],
          start: to,
          indexedFrom: checkpoint.indexedFrom ?? checkpoint.start,
        });
        status.blocks_skipped = { from, to: to - 1 };
        yield* Effect.logError(
          `chain ${chain.name} (${chainId}): the RPC endpoints no longer keep blocks ${from} to ${to - 1} (pruned before ingest got to them); they are not read, the index lacks them, and webhooks get none of their events`,
        );
      }),

    /**
     * Checks each fetched block against the window; publishes what extends it, stops at a fork.
     * Answers whether the window moved (blocks published, or a reorg handled).
     */
    apply: (blocks: ReadonlyArray<EncodedBlock>) =>
      Effect.gen(function* () {
        let window = checkpoint.window;
        const accepted: Array<EncodedBlock> = [];
        for (const block of blocks) {
          const verdict = reconcile(window, block.ref, checkpoint.start);
          if (verdict.kind === "duplicate") continue;
          if (verdict.kind !== "extend") break;
          window = extend(window, block.ref, chain.finality_depth);
          accepted.push(block);
        }
        if (accepted.length > 0) yield* commit(accepted, window);
        if (
          accepted.length < blocks.length &&
          reconcile(window, blocks[accepted.length]!.ref).kind === "fork"
        ) {
          yield* handleFork;
          return true;
        }
        return accepted.length > 0;
      }),

    /**
     * At start, with nothing new to read, the window's tip must still be the chain's block at that
     * height: a reorg onto a branch no longer than ours while no process followed the chain brings
     * no new block whose parent hash would reveal it. `unknown` when the node has no block at that
     * height (a node behind the one we read before, or a shorter chain): the next poll asks again,
     * and a new block's parent hash settles it, so a lagging node never makes us publish a reorg.
     */
    checkTip: Effect.gen(function* () {
      const tip = checkpoint.window.at(-1);
      if (tip === undefined) return "same" as const;
      const hash = yield* Effect.promise(() => options.canonicalHash(tip.number));
      return hash === undefined
        ? ("unknown" as const)
        : hash === tip.hash
          ? ("same" as const)
          : ("replaced" as const);
    }),
  } as const;
};
