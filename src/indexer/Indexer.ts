import {
  DeliverPolicy,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
} from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { type Cause, Effect } from "effect";
import type { ChainRegistry } from "../chains/ChainRegistry.js";
import { aggregate3 } from "../chains/multicall3.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import type { ChainBlock, ChainReorg } from "../domain/ChainBlock.js";
import { isChainEvent } from "../domain/chainEventShape.js";
import {
  chainEventsReader,
  decodeChainEvent,
  readSplitEvent,
  SplitPart,
  UnreadableChainEvent,
} from "../ingest/chainEventCodec.js";
import { type PromiseLog, promiseLog } from "../lib/promiseLog.js";
import { PULL_EXPIRES_MS } from "../nats/pullOptions.js";
import { consumeEach, restarting, type Verdict, Verdicts } from "../nats/runConsumer.js";
import { streamTail } from "../nats/streamTail.js";
import { untilWatchFallsBehind, WATCH_CHECK_MS, WatchProgress } from "../nats/WatchProgress.js";
import type { KeyPresence } from "../storage/KeyPresence.js";
import type { Db, Operation } from "../storage/Level.js";
import { writeBatch } from "../storage/writeBatch.js";
import { planBlock, planReorg } from "./applyBlock.js";
import type { DisownedNfts } from "./DisownedNfts.js";
import type { IndexCache } from "./IndexCache.js";
import type { IndexedWallets } from "./IndexedWallets.js";
import type { IndexCheckpoint } from "./IndexRecords.js";
import {
  INDEX_STREAM_KEY,
  INDEX_TRIMMED_KEY,
  indexChainTrimmedKey,
  indexCheckpointKey,
  PREFIX,
} from "./indexKeys.js";
import { chainLateRegistryReads, type LateRegistryReads } from "./lateRegistryReads.js";
import { type IndexReads, PendingWrites } from "./PendingWrites.js";
import { type IndexGap, RecordedGaps } from "./RecordedGaps.js";
import { readTokenMetadata } from "./readTokenMetadata.js";
import { readUnderlying } from "./readUnderlying.js";
import { readVaultProbes } from "./readVaultProbes.js";

export type { IndexGap } from "./RecordedGaps.js";

/**
 * Where a report of what the index missed is kept: a chain's own missed blocks under that chain's
 * key, so that only its wallets are discovered again; dropped stream messages, whose chains are
 * not known, under the key every chain reads.
 */
const trimmedKeyOf = (trimmed: IndexTrimmed): string =>
  trimmed.chain_id === undefined ? INDEX_TRIMMED_KEY : indexChainTrimmedKey(trimmed.chain_id);

/** Stream sequence of the last CHAIN_EVENTS message applied, written in the same batch as its effects. */
export const STREAM_SEQ_KEY = `${PREFIX}seq`;

/**
 * What the index missed, found at `at` (ms): CHAIN_EVENTS messages `from`..`to` (stream sequences)
 * dropped before the index applied them, or, with `chain_id`, that chain's blocks `from`..`to`,
 * which ingest could not read (its nodes had pruned them) and never published, or, with
 * `earlier_stream`, the messages from `from` on of a CHAIN_EVENTS made again since (how many is
 * not known: `to` is `from`).
 */
export interface IndexTrimmed {
  readonly from: number;
  readonly to: number;
  readonly at: number;
  readonly chain_id?: number;
  readonly earlier_stream?: string;
}

export interface IndexerOptions {
  readonly nc: NatsConnection;
  readonly db: Db;
  readonly registry: ChainRegistry;
  readonly client: (chainId: number) => ChainRpc | undefined;
  /** The process's request-path memory of the views, told about every change. */
  readonly cache?: IndexCache;
  /** Which wallet-token keys are certainly absent, so that planning does not ask LevelDB for them. */
  readonly presence?: KeyPresence;
  /** Stale position-NFT records that reads found; each batch deletes those still stale (DisownedNfts). */
  readonly disowned?: DisownedNfts;
  /**
   * Told when the stream no longer holds the messages after the index's last one (its retention
   * dropped them while this worker was down or behind): the index lacks what they held.
   */
  readonly onTrimmed?: (trimmed: IndexTrimmed) => void;
  /**
   * Told of a chain's blocks the index jumped over (`from`..`to`, after a trim or blocks ingest
   * never published), once it met the block after them; recorded under indexGapKey too. Told again
   * as the gap is filled (RecordedGaps.fill), once the blocks that fill it are written: `undefined` when
   * nothing of it is left.
   */
  readonly onGap?: (chainId: number, gap: IndexGap | undefined) => void;
  /** Whose token touches each chain's blocks record (every wallet's when absent). */
  readonly wallets?: IndexedWallets;
  /** Called after each message is applied (for freshness waits and lag figures). */
  readonly onApplied?: (chainId: number, blockNumber: number) => void;
  /** How often the stream's leader is asked whether the consumer keeps up, ms (WATCH_CHECK_MS; tests shorten it). */
  readonly watchCheckMs?: number;
}

/** The subjects of chain events in CHAIN_EVENTS. */
const CHAIN_SUBJECTS = "chain.>";

/**
 * Each chain's late-item reads, made once per indexer run: they remember the contracts found not
 * listed, which the planning of every block with a look-alike borrow would otherwise ask about again.
 */
const lateReadsPerChain = (registry: ChainRegistry) => {
  const perChain = new Map<number, LateRegistryReads>();
  return (chainId: number, client: ChainRpc): LateRegistryReads => {
    let reads = perChain.get(chainId);
    if (reads === undefined) {
      reads = chainLateRegistryReads((calls) => aggregate3(client, calls), registry.byId.get(chainId)!);
      perChain.set(chainId, reads);
    }
    return reads;
  };
};

/**
 * The writes that apply one CHAIN_EVENTS message to the views, planned against `reads`. A block
 * more than one above the chain's checkpoint follows blocks ingest never published: `missed` is
 * told of them before the block is planned.
 */
const plan = async (
  options: IndexerOptions,
  lateOf: ReturnType<typeof lateReadsPerChain>,
  reads: IndexReads,
  subject: string,
  data: unknown,
  missed: (chainId: number, from: number, to: number) => Promise<void>,
  firstOfChain: (chainId: number, number: number) => Promise<void>,
  filled: (chainId: number, number: number) => void,
): Promise<ReadonlyArray<Operation>> => {
  const chainId = Number(subject.split(".")[1]);
  const chain = options.registry.byId.get(chainId);
  if (chain === undefined) return [];
  const checkpoint = (await reads.get(indexCheckpointKey(chainId))) as IndexCheckpoint | undefined;
  if (subject.endsWith(".reorg")) return planReorg(reads, chain, checkpoint, data as ChainReorg);
  const block = data as ChainBlock;
  // Already applied (a republish after an ingest restart): nothing to do.
  if (checkpoint !== undefined && block.number <= checkpoint.number) return [];
  if (checkpoint === undefined) await firstOfChain(chainId, block.number);
  else if (block.number > checkpoint.number + 1)
    await missed(chainId, checkpoint.number + 1, block.number - 1);
  else filled(chainId, block.number);
  const client = options.client(chainId);
  // With planBlock's asking about each touch, one synchronous step (IndexedWallets.records).
  const wallets = options.wallets;
  wallets?.planning(chainId, block.number);
  return planBlock(reads, chain, block, {
    ...(wallets === undefined ? {} : { recordsWallet: (wallet: string) => wallets.records(chain, wallet) }),
    metadata: (tokens) =>
      client === undefined
        ? Promise.resolve(tokens.map(() => ({ name: null, symbol: null, decimals: null })))
        : readTokenMetadata(client, tokens),
    underlying: (contracts) =>
      client === undefined ? Promise.resolve(contracts.map(() => null)) : readUnderlying(client, contracts),
    vaults: (tokens) =>
      client === undefined ? Promise.resolve(tokens.map(() => null)) : readVaultProbes(client, tokens),
    ...(client === undefined ? {} : { late: lateOf(chainId, client) }),
  });
};

/**
 * What the index missed, said loudly, recorded (trimmedKeyOf, so discovery sweeps the wallets again
 * even after a restart) and reported; the index goes on from what it still has.
 */
const recordMissed = async (
  options: IndexerOptions,
  log: PromiseLog,
  missed: IndexTrimmed,
  why: string,
): Promise<IndexTrimmed> => {
  log.error(why);
  await options.db.put(trimmedKeyOf(missed), missed);
  options.onTrimmed?.(missed);
  return missed;
};

/** Messages the stream dropped (by age or by bytes) before this index applied them: every chain's. */
const reportTrimmed = (options: IndexerOptions, log: PromiseLog, from: number, to: number) =>
  recordMissed(
    options,
    log,
    { from, to, at: Date.now() },
    `CHAIN_EVENTS no longer holds messages ${from}-${to}, dropped by its retention before this worker indexed them: wallets are discovered again from the chain; raise CHAIN_EVENTS_MAX_GB if this recurs`,
  );

/**
 * A chain's blocks that ingest never published (its nodes had pruned them by the time it read
 * on, docs/ingestion.md): only that chain's wallets are swept again; other chains lost nothing.
 */
const reportMissedBlocks = (
  options: IndexerOptions,
  log: PromiseLog,
  chainId: number,
  from: number,
  to: number,
) =>
  recordMissed(
    options,
    log,
    { chain_id: chainId, from, to, at: Date.now() },
    `chain ${chainId}: blocks ${from}-${to} were never published (ingest's RPC nodes no longer kept them when it read on): the index lacks them, and the chain's wallets are discovered again from it`,
  );

/**
 * The stream position to resume from in CHAIN_EVENTS as it is now (`created`): the index's own, or
 * 0 when the index was applied from an earlier stream, made again since (deleted by hand, its
 * JetStream store lost), whose sequences name other messages. The views are kept: their blocks are
 * the chain's wherever they were read; the messages of the earlier stream after the index's last
 * are reported missed, and each chain's next block records the gap. A process running on while
 * its stream is made again meets this on the indexer's restart. An index with no record of its
 * stream (from a version that kept none) is taken to be of this one, and recorded so.
 */
const resumeIn = async (
  options: IndexerOptions,
  log: PromiseLog,
  created: string,
): Promise<{ readonly appliedSeq: number; readonly earlierStream: boolean }> => {
  const appliedSeq = ((await options.db.get(STREAM_SEQ_KEY)) as number | undefined) ?? 0;
  const recorded = (await options.db.get(INDEX_STREAM_KEY)) as string | undefined;
  if (recorded === created) return { appliedSeq, earlierStream: false };
  if (recorded === undefined || appliedSeq === 0) {
    await options.db.put(INDEX_STREAM_KEY, created);
    return { appliedSeq, earlierStream: false };
  }
  const missed: IndexTrimmed = {
    from: appliedSeq + 1,
    to: appliedSeq + 1,
    at: Date.now(),
    earlier_stream: recorded,
  };
  log.error(
    `CHAIN_EVENTS was made again (created ${created}) since this index applied message ${appliedSeq} of the earlier one (created ${recorded}): reading the new stream from its start; blocks published to the earlier one after that message are missing, and wallets are discovered again from the chain`,
  );
  await options.db.batch([
    { type: "put", key: INDEX_TRIMMED_KEY, value: missed },
    { type: "put", key: STREAM_SEQ_KEY, value: 0 },
    { type: "put", key: INDEX_STREAM_KEY, value: created },
  ]);
  options.onTrimmed?.(missed);
  return { appliedSeq: 0, earlierStream: true };
};

/**
 * The last stream sequence the index accounts for: its own last message, or, where the stream has
 * since dropped the messages after it (or, for a new index, its first ones), the last dropped one,
 * once reported. Every later gap between two messages the consumer shows is reported as it is met.
 */
const accountedUpTo = async (
  options: IndexerOptions,
  jsm: JetStreamManager,
  appliedSeq: number,
  log: PromiseLog,
): Promise<number> => {
  const first = (await jsm.streams.info("CHAIN_EVENTS")).state.first_seq;
  if (first <= appliedSeq + 1) return appliedSeq;
  await reportTrimmed(options, log, appliedSeq + 1, first - 1);
  return first - 1;
};

/** Blocks planned and written as one batch while catching up, at most. */
const MAX_BATCH_BLOCKS = 100;
/** How long a batch may gather blocks before it is written, so a long catch-up shows its progress. */
const MAX_BATCH_MS = 50;

/**
 * What is told of one planned message once its batch is written: its chain, and the block applied
 * or the ancestor a reorg went back to. Not the message's decoded event: a batch gathers up to
 * MAX_BATCH_BLOCKS of them, and keeping whole blocks (their transactions' calldata, their logs) until
 * the flush made them outlive the young generation's collections, each of which then copied them.
 */
type PlannedEvent = { readonly chainId: number; readonly ops: ReadonlyArray<Operation> } & (
  | { readonly applied: IndexCheckpoint }
  | { readonly revertedTo: IndexCheckpoint }
);

const plannedEvent = (subject: string, data: unknown, ops: ReadonlyArray<Operation>): PlannedEvent => {
  const chainId = Number(subject.split(".")[1]);
  if (subject.endsWith(".reorg")) return { chainId, ops, revertedTo: (data as ChainReorg).common_ancestor };
  const block = data as ChainBlock;
  return { chainId, ops, applied: { number: block.number, hash: block.hash } };
};

/** Tells the request path's memory and the freshness waits about one applied message. */
const report = (options: IndexerOptions, event: PlannedEvent) => {
  if (options.cache !== undefined && event.ops.length > 0) {
    if ("revertedTo" in event) options.cache.reverted(event.chainId, event.revertedTo);
    else options.cache.applied(event.chainId, event.applied, event.ops);
  }
  if (options.onApplied !== undefined && "applied" in event)
    options.onApplied(event.chainId, event.applied.number);
};

/**
 * Keeps this node's LevelDB views up to date from CHAIN_EVENTS: an ordered
 * consumer resuming right after the last applied stream sequence, applying
 * blocks and reverting reorganised ones in stream order. While it catches up,
 * up to MAX_BATCH_BLOCKS blocks are planned (each reading what the ones before
 * it wrote, PendingWrites) and written as one batch.
 */
export const runIndexer = (options: IndexerOptions) =>
  Effect.gen(function* () {
    const log = yield* promiseLog;
    // tryPromise, not promise: a failed read must be an error the retry below restarts from; a
    // defect would end the indexer for good while /healthz kept answering from a stale index.
    const jsm = yield* Effect.tryPromise(() => jetstreamManager(options.nc));
    const created = (yield* Effect.tryPromise(() => jsm.streams.info("CHAIN_EVENTS"))).created;
    const { appliedSeq, earlierStream } = yield* Effect.tryPromise(() => resumeIn(options, log, created));
    let accounted = yield* Effect.tryPromise(() => accountedUpTo(options, jsm, appliedSeq, log));
    /**
     * A trim told again each time a batch takes a chain's index past it (its first block after the
     * gap), timed once that batch is in the index: discovery is told at once, but a sweep that began
     * meanwhile read the chain's block from before the gap, and is stale only against this later
     * time (WalletDiscovery's sweepStale). Kept while chains wait for their first block after it.
     */
    let retell: IndexTrimmed | undefined =
      accounted > appliedSeq || earlierStream
        ? // Just written of the stream (accountedUpTo, resumeIn): every chain's.
          ((yield* Effect.tryPromise(() => options.db.get(INDEX_TRIMMED_KEY))) as IndexTrimmed | undefined)
        : undefined;
    /** A chain's first block after the trim is in the batch being gathered: `retell` is due at its flush. */
    let retellDue = false;
    /**
     * Chains whose blocks ingest never published, met in the batch being gathered: told again at
     * its flush, as `retell` is, and apart from it (a stream's trim still waiting for other chains'
     * first blocks is not replaced by one chain's report).
     */
    const chainRetells = new Map<number, IndexTrimmed>();
    /**
     * Chains whose next block may jump past their checkpoint because the stream dropped messages
     * (already reported as such): every chain after a trim or a stream made again, until its first
     * block after it.
     */
    const excused = new Set<number>(
      accounted > appliedSeq || earlierStream ? options.registry.byId.keys() : [],
    );
    // Written with the batch of the blocks that change them, and told to onGap after it.
    const gaps = yield* Effect.tryPromise(() => RecordedGaps.read(options.db, options.registry.byId.keys()));
    // Told again on every (re)start: a run that ended between a batch and telling its gaps left
    // discovery with the ones before it.
    for (const chainId of options.registry.byId.keys()) options.onGap?.(chainId, gaps.of(chainId));
    const missed = async (chainId: number, from: number, to: number) => {
      // After a trim (reported already) the chain's first block names the blocks it lost too.
      gaps.widen(chainId, from, to);
      if (!excused.has(chainId))
        chainRetells.set(chainId, await reportMissedBlocks(options, log, chainId, from, to));
    };
    // A chain's first block after a trim, in an index that had none of it: whatever came before it
    // (from where ingest began) may be what the stream dropped.
    const firstOfChain = async (chainId: number, number: number) => {
      if (excused.has(chainId) && number > 0) gaps.widen(chainId, 0, number - 1);
    };
    const consumer = yield* Effect.tryPromise(() =>
      jetstream(options.nc).consumers.get("CHAIN_EVENTS", {
        ...(appliedSeq === 0
          ? { deliver_policy: DeliverPolicy.All }
          : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: appliedSeq + 1 }),
      }),
    );
    const messages = yield* Effect.tryPromise(() => consumer.consume({ expires: PULL_EXPIRES_MS }));
    // A consumer that cannot be closed cleanly (the connection is gone) must not end the restarts either.
    yield* Effect.addFinalizer(() =>
      Effect.promise(() =>
        messages.close().then(
          () => undefined,
          () => undefined,
        ),
      ),
    );
    // An ordered consumer can stall without ending after a nats-server is lost (WatchProgress.ts), and
    // the views would then stay at their last block for good: the stream's leader is asked now and then
    // whether a chain event waits unshown, and a consumer that is behind is stopped, so the loop below
    // ends where it is and the indexer reads on from its last batch with a new one.
    const progress = new WatchProgress(appliedSeq);
    let working = false;
    let unshown: number | undefined;
    const tail = streamTail(jsm, "CHAIN_EVENTS", "");
    yield* Effect.forkScoped(
      untilWatchFallsBehind(
        progress,
        tail,
        CHAIN_SUBJECTS,
        options.watchCheckMs ?? WATCH_CHECK_MS,
        () => working,
      ).pipe(
        Effect.flatMap((seq) =>
          Effect.sync(() => {
            unshown = seq;
            messages.stop();
          }),
        ),
      ),
    );
    const readPart = chainEventsReader(jsm);
    const pending = new PendingWrites(options.db, options.presence);
    const lateOf = lateReadsPerChain(options.registry);
    let planned: Array<PlannedEvent> = [];
    let lastSeq: number | undefined;
    let batchStartedAt = 0;
    // One LevelDB batch holds the planned blocks' writes and the stream sequence of the last of them:
    // views and position move together, so a crash at any moment neither loses nor doubles a block.
    const flush = async () => {
      if (lastSeq === undefined) return;
      // Checked only when a read reported some: a batch's write is otherwise started at once.
      const forgotten =
        options.disowned !== undefined && options.disowned.size > 0
          ? await options.disowned.plan(pending)
          : [];
      // Written with the batch as a lower bound of the time told below, should the process stop first.
      const due = [...(retell !== undefined && retellDue ? [retell] : []), ...chainRetells.values()];
      await writeBatch(options.db, [
        ...pending.ops,
        ...forgotten,
        ...gaps.writes(),
        ...due.map((d) => ({ type: "put" as const, key: trimmedKeyOf(d), value: { ...d, at: Date.now() } })),
        { type: "put", key: STREAM_SEQ_KEY, value: lastSeq },
      ]);
      if (forgotten.length > 0) options.cache?.written(forgotten);
      for (const event of planned) report(options, event);
      for (const [chainId, gap] of gaps.written()) options.onGap?.(chainId, gap);
      if (due.length > 0) {
        retellDue = false;
        if (excused.size === 0) retell = undefined;
        chainRetells.clear();
        // Timed after the batch is in the index and its memory, and all told before any wait: a
        // sweep begun before read a block from before the gap, one begun after reads past it.
        const told = due.map((d) => ({ ...d, at: Date.now() }));
        for (const report of told) options.onTrimmed?.(report);
        await options.db.batch(
          told.map((report) => ({ type: "put" as const, key: trimmedKeyOf(report), value: report })),
        );
      }
      pending.clear();
      planned = [];
      lastSeq = undefined;
    };
    /** Plans one message into the batch, and writes the batch when it is due. */
    const apply = async (message: JsMsg) => {
      const decoded = decodeChainEvent(message);
      // A split event is applied at its last part, the others read by sequence wherever they are.
      const data =
        decoded instanceof SplitPart && decoded.isLast ? await readSplitEvent(decoded, readPart) : decoded;
      // Sequences are consecutive unless the stream dropped messages the consumer never reached.
      if (message.seq > accounted + 1) {
        retell = await reportTrimmed(options, log, accounted + 1, message.seq - 1);
        for (const chainId of options.registry.byId.keys()) excused.add(chainId);
      }
      accounted = Math.max(accounted, message.seq);
      if (lastSeq === undefined) batchStartedAt = performance.now();
      if (data instanceof SplitPart) {
        // A part before the last: nothing to apply. Its sequence is done all the same: the last
        // part reads it again, wherever a restart resumes.
      } else if (!isChainEvent(message.subject, data)) {
        // Retrying cannot help a message no consumer can apply: skip it, or the index stops here.
        log.error("chain event cannot be applied; skipped", {
          subject: message.subject,
          seq: message.seq,
          reason: data instanceof UnreadableChainEvent ? data.reason : "not a chain event's shape",
        });
      } else {
        const ops = await plan(
          options,
          lateOf,
          pending,
          message.subject,
          data,
          missed,
          firstOfChain,
          (chainId, n) => gaps.fill(chainId, n),
        );
        if (message.subject.endsWith(".block") && excused.delete((data as ChainBlock).chain_id))
          retellDue = true;
        pending.add(ops);
        planned.push(plannedEvent(message.subject, data, ops));
      }
      lastSeq = message.seq;
      // Catching up (more messages already in the stream), blocks are written together; a live block
      // is written at once.
      if (
        message.info.pending === 0 ||
        planned.length >= MAX_BATCH_BLOCKS ||
        performance.now() - batchStartedAt >= MAX_BATCH_MS
      )
        await flush();
    };
    const handle = (message: JsMsg): Effect.Effect<Verdict, Cause.UnknownException> =>
      Effect.tryPromise(async () => {
        progress.showed(message.seq);
        working = true;
        try {
          await apply(message);
        } finally {
          working = false;
        }
      }).pipe(Effect.as(Verdicts.read));
    // Blocks planned but not yet written are read again by the next consumer, from the last batch.
    yield* consumeEach("CHAIN_EVENTS", messages, handle).pipe(
      Effect.catchTag("ConsumerEnded", (ended) =>
        Effect.fail(
          unshown === undefined
            ? ended
            : new Error(
                `the CHAIN_EVENTS consumer has not shown message ${unshown} for a whole check; reading on with a new one`,
              ),
        ),
      ),
    );
  }).pipe(Effect.scoped, restarting("indexer"));
