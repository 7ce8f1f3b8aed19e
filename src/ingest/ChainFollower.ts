import type { JetStreamClient } from "@nats-io/jetstream";
import { Duration, Effect, Either, Fiber, Queue, Schedule } from "effect";
import type { ChainConfig } from "../chains/ChainsConfig.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import type { ChainRpcError } from "../chains/rpc/ChainRpcError.js";
import type { ChainCapabilities } from "../chains/rpc/NodeCapabilities.js";
import type { RpcBlock } from "../chains/rpc/RpcTypes.js";
import { BLOCK_MESSAGE_VERSION, type ChainBlock, ChainReorg } from "../domain/ChainBlock.js";
import { publishBlocks, publishReorg } from "./BlockPublisher.js";
import type { Checkpoint } from "./CheckpointStore.js";
import { type FollowerStatus, RateMeter } from "./FollowerStatus.js";
import { headSignals } from "./headSignals.js";
import { type HeldLease, LeaseLost } from "./lease/ChainLease.js";
import { nextReadsInFlight } from "./readsInFlight.js";
import {
  type BlockRef,
  type BlockWindow,
  extend,
  findCommonAncestor,
  reconcile,
  rewind,
} from "./reconcile.js";
import { fetchHistoryBlocks } from "./rpc/fetchHistoryBlocks.js";
import { fetchLiveBlock } from "./rpc/fetchLiveBlock.js";

export interface FollowerOptions {
  readonly chain: ChainConfig;
  readonly rpc: ChainRpc;
  /** What the chain's endpoints can answer, once probed: history is read only where they keep logs. */
  readonly capabilities: Effect.Effect<ChainCapabilities>;
  readonly js: JetStreamClient;
  /** This process's lease on the chain: checked before every publish, and where the checkpoint is saved. */
  readonly lease: HeldLease;
  /** Where to resume when the lease holds no checkpoint yet (one saved locally by an earlier version). */
  readonly legacyCheckpoint: Checkpoint | undefined;
  readonly status: FollowerStatus;
  /** How often the head is polled; a WebSocket subscription wakes the loop sooner. */
  readonly pollMs: number;
  /** Most blocks read per step while reading history (fewer while the node takes smaller log ranges). */
  readonly historyRange: number;
  /**
   * Live blocks fetched in parallel while catching up (published in order), at most: a read that
   * times out halves it, down to one, and each range read whole raises it by one again.
   */
  readonly prefetch: number;
  /**
   * Live blocks read per step while catching up, `prefetch` at a time, then published together while
   * the next range is read. Larger than `prefetch`, so that the reads keep `prefetch` in flight
   * instead of waiting for a range's slowest block every `prefetch` blocks, and a step's head poll,
   * lease check and checkpoint save are shared by more blocks.
   */
  readonly catchUpRange: number;
  /** The NATS server's max_payload: larger block messages are split. */
  readonly maxPayload: number;
}

/** A range of live blocks read: those before the first read that failed, and that failure. */
interface RangeRead {
  readonly blocks: ReadonlyArray<ChainBlock | undefined>;
  readonly failure: ChainRpcError | undefined;
}

const refOf = (block: ChainBlock): BlockRef => ({
  number: block.number,
  hash: block.hash,
  parentHash: block.parent_hash,
});

/** How long the follower waits for the first probe of the endpoints before reading history anyway. */
const FIRST_PROBE_WAIT = "30 seconds";

const hex = (n: number) => `0x${n.toString(16)}`;

/** Waits between attempts after an RPC or bus failure: 200 ms doubling to 10 s, forever. */
const retrySchedule = Schedule.exponential("200 millis").pipe(Schedule.union(Schedule.spaced("10 seconds")));

/**
 * Follows one chain while this process holds its lease: reads each new block
 * (whole, or in bulk as history before the first start), detects reorgs by
 * parent hash against the unfinalised window, publishes blocks and reorgs to
 * CHAIN_EVENTS, and saves the checkpoint into the lease after every
 * acknowledged publish. It resumes from the lease's checkpoint, so a process
 * taking the chain over continues exactly where the previous holder's
 * acknowledged publishes ended. Errors are retried on a schedule inside this
 * chain's fiber, so one chain's node being down never stalls another chain;
 * it ends only with LeaseLost.
 */
export const followChain = (options: FollowerOptions) =>
  Effect.gen(function* () {
    const { chain, rpc, js, lease, status } = options;
    const chainId = chain.chain_id;
    const meter = new RateMeter();
    const wake = yield* headSignals(chain.ws_url);

    const headNumber = rpc
      .call<string>("eth_blockNumber", [], { head: true })
      .pipe(Effect.map((head) => Number.parseInt(head, 16)));
    const canonicalHash = (n: number) =>
      rpc.request<RpcBlock<string> | null>("eth_getBlockByNumber", [hex(n), false], { block: n }).then(
        (block) => block?.hash.toLowerCase(),
        () => undefined,
      );

    // What the endpoints can answer decides where history can be read and whether traces can.
    const capabilities = yield* options.capabilities.pipe(
      Effect.timeoutTo({
        duration: FIRST_PROBE_WAIT,
        onTimeout: () => rpc.capabilities(),
        onSuccess: (c) => c,
      }),
    );
    /** Internal native transfers are read while configured and some endpoint serves traces. */
    let traces = chain.traces;
    const tracesUnavailable = (why: string) =>
      Effect.gen(function* () {
        traces = false;
        status.traces = "unavailable";
        yield* Effect.logWarning(
          `chain ${chain.name} (${chainId}): internal native transfers are off: ${why}; blocks are read without them`,
        );
      });
    status.traces = chain.traces ? "on" : "off";
    if (chain.traces && capabilities.traces === false)
      yield* tracesUnavailable("no RPC endpoint serves debug_traceBlockByHash");

    const onFailure = (error: ChainRpcError | { readonly message: string }) =>
      Effect.sync(() => {
        if (error instanceof LeaseLost) return;
        status.rpc_errors++;
        status.last_error = error.message.slice(0, 300);
      });

    let checkpoint: Checkpoint =
      lease.checkpoint ??
      options.legacyCheckpoint ??
      // A first start needs the head: asked until a node answers, each failure shown in the status.
      (yield* Effect.map(
        headNumber.pipe(Effect.tapError(onFailure), Effect.retry(retrySchedule)),
        (head) => ({
          window: [],
          historyUntil: head,
          start: chain.start_block ?? head,
          indexedFrom: chain.start_block ?? head,
        }),
      ));

    status.indexed_from = checkpoint.indexedFrom ?? checkpoint.start;

    /** The next block to read: above the window's tip, or the start when nothing was published. */
    const next = () => (checkpoint.window.at(-1)?.number ?? checkpoint.start - 1) + 1;

    /** What operators and /healthz see as published: the window's tip. */
    const showProcessed = () => {
      const tip = checkpoint.window.at(-1);
      if (tip === undefined) return;
      status.processed = tip.number;
      status.processed_hash = tip.hash;
      status.processed_parent_hash = tip.parentHash;
    };
    showProcessed();

    /**
     * Whether the resume point has been checked against the chain. Until it has, the status stays
     * `starting`: a reorg that happened while no process followed the chain is only seen by reading
     * the chain, and /healthz must not call the index complete before that.
     */
    let verified = false;

    const commit = (blocks: ReadonlyArray<ChainBlock>, window: BlockWindow) =>
      Effect.gen(function* () {
        yield* lease.fence;
        yield* publishBlocks(js, blocks, options.maxPayload);
        checkpoint = { ...checkpoint, window };
        yield* lease.save(checkpoint);
        let logs = 0;
        for (const block of blocks) logs += block.logs.length;
        meter.add(logs);
        status.blocks_published += blocks.length;
        showProcessed();
      });

    /**
     * Publishes the reorg and rewinds the window to the common ancestor. A reorg
     * deeper than the window removes the whole window: consumers revert all of
     * it and the window's range is read again from the node's chain.
     */
    const handleFork = Effect.gen(function* () {
      const window = checkpoint.window;
      const oldest = window[0];
      if (oldest === undefined) return;
      const found = (yield* Effect.promise(() => findCommonAncestor(window, canonicalHash))) ?? {
        ancestor: { number: oldest.number - 1, hash: oldest.parentHash, parentHash: "" },
        removed: [...window].reverse(),
      };
      if (found.ancestor.number < oldest.number) {
        yield* Effect.logError(
          `chain ${chainId}: reorg deeper than the ${window.length}-block window; re-reading it`,
        );
      }
      yield* lease.fence;
      yield* publishReorg(
        js,
        ChainReorg.make({
          version: BLOCK_MESSAGE_VERSION,
          chain_id: chainId,
          common_ancestor: { number: found.ancestor.number, hash: found.ancestor.hash },
          removed: found.removed.map((ref) => ({ number: ref.number, hash: ref.hash })),
        }),
      );
      checkpoint =
        found.ancestor.number < oldest.number
          ? { ...checkpoint, window: [], start: oldest.number }
          : { ...checkpoint, window: rewind(window, found.ancestor) };
      yield* lease.save(checkpoint);
      status.processed = found.ancestor.number;
      status.processed_hash = found.ancestor.hash;
      // Unknown when the reorg went deeper than the window (the ancestor is only a parent hash then).
      status.processed_parent_hash = found.ancestor.parentHash === "" ? null : found.ancestor.parentHash;
      status.reorgs++;
      yield* Effect.logWarning(
        `chain ${chainId}: reorg of ${found.removed.length} block(s) above ${found.ancestor.number}`,
      );
    });

    /**
     * History the nodes no longer keep is not read: the follower moves to `to`, says which blocks it
     * left out (log and status), and the index then has nothing of them, as for blocks before a
     * chain's start block.
     */
    const skipHistory = (from: number, to: number) =>
      Effect.gen(function* () {
        checkpoint = { ...checkpoint, window: [], start: to, indexedFrom: to };
        status.indexed_from = to;
        yield* lease.save(checkpoint);
        status.history_skipped = { from: status.history_skipped?.from ?? from, to: to - 1 };
        yield* Effect.logWarning(
          `chain ${chain.name} (${chainId}): the RPC endpoints keep logs from block ${to} only; blocks ${status.history_skipped.from} to ${to - 1} are not read, and the index has nothing of them`,
        );
      });

    /** Checks each fetched block against the window; publishes what extends it, stops at a fork. */
    const apply = (blocks: ReadonlyArray<ChainBlock>) =>
      Effect.gen(function* () {
        let window = checkpoint.window;
        const accepted: Array<ChainBlock> = [];
        for (const block of blocks) {
          const verdict = reconcile(window, refOf(block));
          if (verdict.kind === "duplicate") continue;
          if (verdict.kind !== "extend") break;
          window = extend(window, refOf(block), chain.finality_depth);
          accepted.push(block);
        }
        if (accepted.length > 0) yield* commit(accepted, window);
        if (
          accepted.length < blocks.length &&
          reconcile(window, refOf(blocks[accepted.length]!)).kind === "fork"
        ) {
          yield* handleFork;
        }
      });

    /**
     * At start, with nothing new to read, the window's tip must still be the chain's block at that
     * height: a reorg onto a branch no longer than ours while no process followed the chain brings no
     * new block whose parent hash would reveal it. `unknown` when the node has no block at that height
     * (a node behind the one we read before, or a shorter chain): the next poll asks again, and a new
     * block's parent hash settles it, so a lagging node never makes us publish a reorg.
     */
    const checkTip = Effect.gen(function* () {
      const tip = checkpoint.window.at(-1);
      if (tip === undefined) return "same" as const;
      const hash = yield* Effect.promise(() => canonicalHash(tip.number));
      return hash === undefined
        ? ("unknown" as const)
        : hash === tip.hash
          ? ("same" as const)
          : ("replaced" as const);
    });

    /** Block reads a catch-up range keeps in flight: fewer while the node times out (see nextReadsInFlight). */
    let readsInFlight = options.prefetch;

    /**
     * Blocks `from`..`to` read whole, `readsInFlight` at a time: the blocks read before the first that
     * failed, and that failure. The read blocks are kept, so a node too slow for one block of a
     * range still lets the follower advance to it instead of reading the whole range again.
     */
    const fetchRange = (from: number, to: number): Effect.Effect<RangeRead> =>
      Effect.map(
        Effect.forEach(
          Array.from({ length: to - from + 1 }, (_, i) => from + i),
          (number) => Effect.either(fetchLiveBlock(rpc, { number, traces })),
          { concurrency: readsInFlight },
        ),
        (results) => {
          const failedAt = results.findIndex(Either.isLeft);
          const read = failedAt === -1 ? results : results.slice(0, failedAt);
          const failure =
            failedAt === -1 ? undefined : (results[failedAt] as Either.Left<ChainRpcError, unknown>).left;
          readsInFlight = nextReadsInFlight(readsInFlight, options.prefetch, failure);
          return {
            blocks: read.map((result) => (Either.isRight(result) ? result.right : undefined)),
            failure,
          };
        },
      );

    /**
     * The next range, being read while the current one is published: catching up, the node's
     * reads and the bus's acks then overlap instead of taking turns. Used only if the next step
     * starts exactly there (after a fork or a failure it is dropped and read again).
     */
    let ahead: { readonly from: number; readonly fiber: Fiber.RuntimeFiber<RangeRead> } | undefined;

    const step = Effect.gen(function* () {
      const head = yield* headNumber;
      status.head = head;
      const from = next();
      const phase = from <= checkpoint.historyUntil ? "history" : "live";
      status.mode = phase === "live" && !verified ? "starting" : phase;
      status.lag = Math.max(0, head - (status.processed ?? from - 1));
      if (from > head) {
        if (!verified) {
          const tip = yield* checkTip;
          if (tip === "replaced") {
            yield* handleFork;
            return true;
          }
          if (tip === "unknown") return false;
        }
        verified = true;
        status.mode = phase;
        return false;
      }
      if (from <= checkpoint.historyUntil) {
        const kept = rpc.capabilities().logsFrom ?? 0;
        if (from < kept) {
          yield* skipHistory(from, Math.min(kept, checkpoint.historyUntil + 1));
          return true;
        }
        const to = Math.min(
          checkpoint.historyUntil,
          from + Math.min(options.historyRange, rpc.logsRange.size) - 1,
        );
        const read = yield* Effect.either(fetchHistoryBlocks(rpc, { from, to }));
        if (read._tag === "Left") {
          const earliest = read.left.reason === "HistoryUnavailable" ? read.left.earliest : undefined;
          if (earliest !== undefined && earliest > from) {
            yield* skipHistory(from, Math.min(earliest, checkpoint.historyUntil + 1));
            return true;
          }
          return yield* Effect.fail(read.left);
        }
        yield* apply(read.right);
      } else {
        const readAhead = ahead;
        ahead = undefined;
        let range: RangeRead;
        if (readAhead?.from === from) range = yield* Fiber.join(readAhead.fiber);
        else {
          if (readAhead !== undefined) yield* Fiber.interrupt(readAhead.fiber);
          range = yield* fetchRange(from, Math.min(head, from + options.catchUpRange - 1));
        }
        const { blocks, failure } = range;
        const present = blocks.filter((block): block is ChainBlock => block !== undefined);
        const nextFrom = from + blocks.length;
        if (failure === undefined && present.length === blocks.length && nextFrom <= head) {
          ahead = {
            from: nextFrom,
            fiber: yield* Effect.fork(
              fetchRange(nextFrom, Math.min(head, nextFrom + options.catchUpRange - 1)),
            ),
          };
        }
        // Applying checks the first block's parent against the window: a fork is handled there.
        yield* apply(present);
        // The blocks read before a failed one are published; the failure is retried from there.
        if (failure !== undefined) {
          if (failure.reason === "MethodUnavailable" && failure.method.startsWith("debug_"))
            yield* tracesUnavailable(`no RPC endpoint serves ${failure.method}`);
          return yield* Effect.fail(failure);
        }
      }
      status.lag = Math.max(0, head - (status.processed ?? head));
      return true;
    });

    const loop = Effect.gen(function* () {
      for (;;) {
        const progressed = yield* step.pipe(
          Effect.tapError(onFailure),
          Effect.retry({
            schedule: retrySchedule,
            // Every failure is tried again (and shown in the status): a follower never stops on
            // its own, only when it loses the chain's lease.
            while: (error) => !(error instanceof LeaseLost),
          }),
        );
        status.events_per_second = meter.perSecond();
        status.updated_at = new Date().toISOString();
        if (!progressed) {
          yield* Effect.race(Queue.take(wake), Effect.sleep(Duration.millis(options.pollMs)));
        }
      }
    });
    return yield* loop;
  });
