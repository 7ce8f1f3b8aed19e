import type { JetStreamClient } from "@nats-io/jetstream";
import { Clock, Duration, Effect, Queue, Schedule } from "effect";
import type { ChainConfig } from "../chains/ChainsConfig.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import type { ChainRpcError } from "../chains/rpc/ChainRpcError.js";
import { ANSWER_TOO_LARGE } from "../chains/rpc/jsonRpcExchange.js";
import type { ChainCapabilities } from "../chains/rpc/NodeCapabilities.js";
import type { RpcBlock } from "../chains/rpc/RpcTypes.js";
import { isStoreFull } from "../nats/storeFull.js";
import type { Checkpoint } from "./CheckpointStore.js";
import { encodeBlock } from "./encodedBlock.js";
import { type FollowerStatus, RateMeter } from "./FollowerStatus.js";
import { makeFailureStreak } from "./failureStreak.js";
import { endpointVerdicts, firstKeptAfter, saysStateGone } from "./goneFromEveryEndpoint.js";
import { makeHeadPacer } from "./headPacer.js";
import { headSignals } from "./headSignals.js";
import { type HeldLease, LeaseLost } from "./lease/ChainLease.js";
import { makeLiveRanges } from "./liveRanges.js";
import { HISTORY_HOLD_MS, makeHistoryKept } from "./prunedHistory.js";
import { makeKeptFrom } from "./prunedLiveBlocks.js";
import { ChainEventsReadError, publishedAfterIn } from "./publishedAfter.js";
import { makePublishedWindow } from "./publishedWindow.js";
import { fetchHistoryBlocks } from "./rpc/fetchHistoryBlocks.js";
import { makeUntraceHold } from "./untraceHold.js";

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
  /**
   * How often the head is polled at most; less often between a regular chain's blocks (headPacer.ts).
   * A WebSocket subscription wakes the loop sooner.
   */
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
  /** How long a refused trace waits on endpoints that say nothing (default UNTRACE_HOLD_MS). */
  readonly untraceHoldMs?: number;
  /** How long a history skip waits on endpoints that hold it back (default HISTORY_HOLD_MS). */
  readonly historyHoldMs?: number;
}

/**
 * How long a refused trace waits on endpoints that did not say whether they keep its state before
 * its blocks are read without traces (untraceHold.ts): at Base's 5 blocks a second, 300 blocks.
 */
const UNTRACE_HOLD_MS = 60_000;
/** A run of refusals ends after this long without one (untraceHold.ts says why it is this long). */
const UNTRACE_QUIET_MS = 120_000;
/** The untrace wait on endpoints that say they keep the state a trace was still refused for. */
const KEPT = "endpoints keeping the state";

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
 * it ends only with LeaseLost. Long as the sum of its named steps (at the head, a
 * history range, a live range), which share the chain's traces flag and whether
 * the resume point was verified; what it publishes is publishedWindow.ts's, how
 * it reads ahead liveRanges.ts's.
 */
export const followChain = (options: FollowerOptions) =>
  Effect.gen(function* () {
    const { chain, rpc, status } = options;
    const chainId = chain.chain_id;
    const meter = new RateMeter();
    const wake = yield* headSignals(chain.ws_url);
    const pacer = makeHeadPacer(options.pollMs);

    const headNumber = rpc
      .call<string>("eth_blockNumber", [], { head: true })
      .pipe(Effect.map((head) => Number.parseInt(head, 16)));
    // Asked of the endpoints at the head (one stalled on an orphaned block is not), as the head is.
    const canonicalHash = (n: number) =>
      rpc
        .request<RpcBlock<string> | null>("eth_getBlockByNumber", [hex(n), false], { block: n, head: true })
        .then(
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

    /**
     * Blocks and reorgs published when the step began or the store last refused a write: a step
     * clears `store_full` only by publishing past it (not by moving past pruned blocks, nor by an
     * attempt that published before a later one found the store full again).
     */
    let publishedBefore = 0;
    const onFailure = (error: ChainRpcError | { readonly message: string }) =>
      Effect.gen(function* () {
        if (error instanceof LeaseLost) return;
        status.last_error = error.message.slice(0, 300);
        if (!isStoreFull(error)) {
          status.rpc_errors++;
          return;
        }
        publishedBefore = status.blocks_published + status.reorgs;
        // Said once per episode: the step is retried on its schedule, and the store stays full
        // until an operator frees it.
        if (status.store_full !== true)
          yield* Effect.logError(
            `chain ${chain.name} (${chainId}): CHAIN_EVENTS refuses its blocks because the JetStream store is full (insufficient resources); ingest retries until there is room: free space in the store (the webhook outbox, USAGE, the index snapshot) or raise max_file_store (docs/operations.md, "Sizing the JetStream store")`,
          );
        status.store_full = true;
      });

    const published = makePublishedWindow(
      { ...options, meter, canonicalHash },
      options.lease.checkpoint ??
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
        )),
    );
    /**
     * Live blocks up to this one are read without traces: the nodes refused to trace one of them for
     * want of its state, which a full node keeps for little (geth 128 blocks, reth about 10,000), and
     * which a follower that fell behind meets. Their receipts are read as ever.
     */
    let untracedThrough = -1;
    const liveRanges = makeLiveRanges({ ...options, traces: (number) => traces && number > untracedThrough });

    const hold = makeUntraceHold(options.untraceHoldMs ?? UNTRACE_HOLD_MS, UNTRACE_QUIET_MS);
    /**
     * Untraced a few blocks at a time where no search can say how far the state is gone: the last
     * such run's end and length, each run following on twice as long as the one before.
     */
    let stepped = { through: -1, size: 0 };

    /** Blocks `from`..`to` are read without traces, shown in the status joined to the run before them. */
    const untrace = (from: number, to: number) => {
      untracedThrough = Math.max(untracedThrough, to);
      const earlier = status.blocks_untraced;
      status.blocks_untraced =
        earlier !== undefined && earlier.to + 1 >= from
          ? { from: earlier.from, to: Math.max(earlier.to, to) }
          : { from, to };
    };

    /**
     * Block `refused` could not be traced for want of its state (its trace re-executes it from the
     * state after the block before): it and the blocks up to the first whose state some endpoint
     * keeps now are read without traces, that block included, since its parent's state is gone.
     * The search goes by halves, each endpoint that can trace asked alone (a probe's figure is up to
     * probe_interval_s old, and geth beside reth keep windows 80 times apart). With several
     * endpoints a refusal is only the last one asked: nothing is untraced while an endpoint has
     * said nothing (an archive that is down) for less than UNTRACE_HOLD_MS, counted per endpoint
     * from the first of a run of such refusals (untraceHold.ts); then it counts as not keeping the
     * state and is not asked in the search. Endpoints that say they keep the state get as long.
     * Where an endpoint keeps the state yet the trace is still refused (a provider whose debug
     * backend keeps less than its others), or no endpoint keeps even the head's, a few blocks at a
     * time, twice as many each time the refusals follow on. Logged, and shown as
     * `blocks_untraced`. Answers whether it did.
     */
    const untraceThrough = (refused: number, head: number) =>
      Effect.gen(function* () {
        const parent = refused - 1;
        const verdicts = yield* endpointVerdicts(rpc, parent, "state");
        const now = yield* Clock.currentTimeMillis;
        const contradicted = verdicts.some((v) => v.verdict === "kept");
        // Each silent endpoint is waited on from its own first silence (every wait is met, not just
        // up to the first that is not over, so each one's run goes on).
        const silent = verdicts.flatMap((v) => (v.verdict === "unknown" ? [v.endpoint] : []));
        const waited = silent.map((endpoint) => hold.over(endpoint, now));
        if (waited.includes(false)) return false;
        if (contradicted && verdicts.length > 1 && !hold.over(KEPT, now)) return false;
        const givenUp = new Set(silent);
        const searched = contradicted
          ? undefined
          : yield* firstKeptAfter(rpc, parent, head, "state", (endpoint) => givenUp.has(endpoint));
        const size = stepped.through + 1 === refused ? Math.max(1, stepped.size * 2) : 1;
        const through = Math.max(refused, searched ?? Math.min(head, refused + size - 1));
        stepped = searched === undefined ? { through, size } : { through: -1, size: 0 };
        untrace(refused, through);
        yield* Effect.logWarning(
          `chain ${chain.name} (${chainId}): blocks ${refused}-${through} are read without internal native transfers: the nodes no longer keep the state to trace them`,
        );
        return true;
      });

    /**
     * A block whose trace is larger than any answer is read (jsonRpcExchange's MAX_RESPONSE_BYTES: a
     * transaction of huge internal calls makes hundreds of MB of trace) is read without it, as a
     * block whose state is gone is: no node can give it whole, and asking again would stop the chain.
     */
    const untraceTooLarge = (failure: ChainRpcError, block: number) =>
      Effect.gen(function* () {
        if (!failure.method.startsWith("debug_") || !(failure.detail ?? "").startsWith(ANSWER_TOO_LARGE))
          return false;
        untrace(block, block);
        yield* Effect.logWarning(
          `chain ${chain.name} (${chainId}): block ${block} is read without internal native transfers: its trace is larger than any answer read (${failure.detail})`,
        );
        return true;
      });

    /**
     * Whether the resume point has been checked against the chain. Until it has, the status stays
     * `starting`: a reorg that happened while no process followed the chain is only seen by reading
     * the chain, and /healthz must not call the index complete before that.
     */
    let verified = false;
    /**
     * Blocks a failed step published were taken in again (adoptPublished) after the chain was
     * verified: the node may have replaced them meanwhile, and at the head no next block would show
     * it until the chain moves on. Their tip is checked as the resume point is, without calling the
     * chain `starting` again.
     */
    let tipTakenIn = false;

    /** At the head: checks the resume point once (and a tip taken in); answers whether anything was published. */
    const atHead = (phase: "history" | "live") =>
      Effect.gen(function* () {
        if (!verified || tipTakenIn) {
          const tip = yield* published.checkTip;
          if (tip === "replaced") {
            yield* published.handleFork;
            tipTakenIn = false;
            return true;
          }
          if (tip === "unknown") return false;
        }
        tipTakenIn = false;
        verified = true;
        status.mode = phase;
        return false;
      });

    const historyKept = makeHistoryKept(rpc, options.historyHoldMs ?? HISTORY_HOLD_MS);

    /** One range of history from `from`, in bulk through logs, or skipped where the nodes keep none. */
    const historyStep = (from: number) =>
      Effect.gen(function* () {
        const historyUntil = published.historyUntil();
        // Skipped only as far as every endpoint agrees (prunedHistory.ts); else read as usual.
        const skipTo = (kept: number, refused: boolean) =>
          Effect.map(historyKept(from, Math.min(kept, historyUntil + 1), refused), (until) =>
            until !== undefined && until > from ? until : undefined,
          );
        const kept = rpc.capabilities().logsFrom ?? 0;
        const probedSkip = from < kept ? yield* skipTo(kept, false) : undefined;
        if (probedSkip !== undefined) return yield* published.skipHistory(from, probedSkip);
        const to = Math.min(historyUntil, from + Math.min(options.historyRange, rpc.logsRange.size) - 1);
        const read = yield* Effect.either(fetchHistoryBlocks(rpc, { from, to }));
        if (read._tag === "Right")
          return yield* published.apply(read.right.map((block) => encodeBlock(block, options.maxPayload)));
        const pruned = read.left.reason === "HistoryUnavailable";
        // A refusal that names no first block kept (geth; a node answering pruned logs empty, which
        // the bloom check refuses) still asks each endpoint where several serve the chain: else a
        // node that claims the block would hold the skip back for good without a hold begun.
        const earliest = pruned
          ? (read.left.earliest ??
            (rpc.endpoints.length > 1 ? (from < kept ? kept : historyUntil + 1) : undefined))
          : undefined;
        const refusedSkip =
          earliest !== undefined && earliest > from ? yield* skipTo(earliest, true) : undefined;
        if (refusedSkip !== undefined) return yield* published.skipHistory(from, refusedSkip);
        return yield* Effect.fail(read.left);
      });

    /**
     * Whether a trace was refused because the nodes no longer keep the state it re-executes from (not
     * a geth archive still indexing its state histories, which will serve it, nor a block unknown).
     */
    const stateGone = (failure: ChainRpcError) =>
      failure.method.startsWith("debug_") && saysStateGone(failure.reason, failure.detail);

    const keptFrom = makeKeptFrom(rpc);

    /**
     * One range of live blocks from `from`: those read are published, a failure is retried from
     * there. Answers whether the window moved.
     */
    const liveStep = (from: number, head: number) =>
      Effect.gen(function* () {
        const { blocks, failure, failedBlock } = yield* liveRanges.read(from, head);
        // Applying checks the first block's parent against the window: a fork is handled there.
        const moved = yield* published.apply(blocks);
        if (failure === undefined) return moved;
        // The next block is pruned: read on from the first the nodes keep, if they say which.
        const kept = blocks.length === 0 ? yield* keptFrom(failure, from, head) : undefined;
        if (kept !== undefined) {
          yield* published.skipLive(from, Math.min(kept, head + 1));
          return true;
        }
        if (failure.reason === "MethodUnavailable" && failure.method.startsWith("debug_"))
          yield* tracesUnavailable(`no RPC endpoint serves ${failure.method}`);
        // Not a failure of the node: the block is read again on the next step, without its trace.
        if (stateGone(failure) && failedBlock !== undefined && (yield* untraceThrough(failedBlock, head)))
          return moved;
        if (failedBlock !== undefined && (yield* untraceTooLarge(failure, failedBlock))) return moved;
        return yield* Effect.fail(failure);
      });

    /** What CHAIN_EVENTS holds of the chain after a sequence, read back once at start (adoptPublished). */
    const publishedAfter = Effect.tryPromise({
      try: async () => publishedAfterIn(await options.js.jetstreamManager(false), chainId),
      catch: (cause) => new ChainEventsReadError({ what: "the chain's events", cause }),
    });
    /** Whether what was published after the saved checkpoint has been taken in (again after a failed step). */
    let adopted = false;

    /** Reads and publishes what comes next; answers whether there was anything. */
    const step = Effect.gen(function* () {
      if (!adopted) {
        const taken = yield* published.adoptPublished(yield* publishedAfter);
        if (taken > 0 && verified) tipTakenIn = true;
        adopted = true;
      }
      const head = yield* headNumber;
      pacer.observe(head, yield* Clock.currentTimeMillis);
      status.head = head;
      const from = published.next();
      const phase = from <= published.historyUntil() ? "history" : "live";
      status.mode = phase === "live" && !verified ? "starting" : phase;
      status.lag = Math.max(0, head - (status.processed ?? from - 1));
      if (from > head) return yield* atHead(phase);
      // A live read that moved nothing waits for the next poll rather than reading the range again
      // at once: the node reported a head whose blocks it does not serve yet (a provider's
      // load-balanced backends that disagree), and asking again in a tight loop only spends its
      // rate limit until the backend catches up.
      const moved =
        phase === "history" ? yield* Effect.as(historyStep(from), true) : yield* liveStep(from, head);
      status.lag = Math.max(0, head - (status.processed ?? head));
      return moved;
    });

    const streak = makeFailureStreak(`chain ${chain.name} (${chainId})`);
    for (;;) {
      publishedBefore = status.blocks_published + status.reorgs;
      const progressed = yield* step.pipe(
        Effect.tapError(onFailure),
        // A failed step may have published what it could not save (the save failed, or a publish
        // after others were stored): the retry takes that in first, as a takeover would, so its
        // window and epoch are what consumers saw, and nothing more is published until it is saved.
        Effect.tapError(() =>
          Effect.sync(() => {
            adopted = false;
          }),
        ),
        // A full store is said once per episode (onFailure), not every minute it lasts.
        Effect.tapError((error) =>
          error instanceof LeaseLost || isStoreFull(error) ? Effect.void : streak.failed(error.message),
        ),
        Effect.retry({
          schedule: retrySchedule,
          // Every failure is tried again (and shown in the status): a follower never stops on
          // its own, only when it loses the chain's lease.
          while: (error) => !(error instanceof LeaseLost),
        }),
      );
      yield* streak.succeeded;
      // A step that published something got it into the store (see publishedBefore).
      if (status.blocks_published + status.reorgs > publishedBefore && status.store_full === true) {
        status.store_full = false;
        yield* Effect.logInfo(`chain ${chain.name} (${chainId}): CHAIN_EVENTS takes its blocks again`);
      }
      status.events_per_second = meter.perSecond();
      status.updated_at = new Date().toISOString();
      if (!progressed) {
        // A head the node named but whose block it did not serve yet is asked for at the base rate.
        const behind = status.head !== null && (status.processed ?? -1) < status.head;
        const waitMs = behind ? options.pollMs : pacer.delayMs(yield* Clock.currentTimeMillis);
        yield* Effect.race(Queue.take(wake), Effect.sleep(Duration.millis(waitMs)));
      }
    }
  });
