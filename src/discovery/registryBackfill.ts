import { Cause, Effect, Exit, Option } from "effect";
import type { ChainConfig } from "../chains/ChainsConfig.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import { getLogs } from "../chains/rpc/getLogs.js";
import { decodeLog } from "../decoding/index.js";
import type { IndexCache } from "../indexer/IndexCache.js";
import { readTokenMetadata } from "../indexer/readTokenMetadata.js";
import { readUnderlying } from "../indexer/readUnderlying.js";
import { writeDiscovered } from "../indexer/writeDiscovered.js";
import { normalizeLog } from "../ingest/normalizeBlock.js";
import type { Db } from "../storage/Level.js";
import { type BackfillRecord, backfillRecordKey } from "./registry/BackfillRecord.js";
import { backfillRpc } from "./registry/backfillRpc.js";
import { planListedPairs } from "./registry/planListedPairs.js";
import { planRegistryLogs, type RegistryReads } from "./registry/planRegistryLogs.js";
import {
  type RegistrySource,
  registryFilter,
  registrySources,
  sourcesFingerprint,
} from "./registry/registrySources.js";
import { readPairCounts, readPairs } from "./registry/v2Pairs.js";

/**
 * How far one chain's registry backfill is (`/healthz`, the TUI, metrics):
 * - `from`..`to`: the blocks whose registry events are read: from the oldest registry `start_block`
 *   the node keeps logs for, up to the block before the index's first (`indexed_from - 1`);
 *   `next`: the first not read yet (`to + 1` once read);
 * - `logs`: registry logs read, over every run; `calls`: JSON-RPC requests this process sent for it;
 * - `pairs`: V2 pairs listed through `allPairs`, where the node keeps no logs for part of a V2
 *   factory's history, and how many there are to list;
 * - `unavailable`: blocks of the registry's history the node keeps no logs for (V2 pairs of them are
 *   listed, pools of other designs are found by the factory lookups only);
 * - `error`: the last failure, tried again at `retry_at` (ms since the epoch); `waiting`: what the
 *   backfill waits to know before it can start (where the index starts, what the node keeps).
 */
export interface BackfillProgress {
  readonly from: number;
  readonly to: number;
  readonly next: number;
  readonly logs: number;
  readonly calls: number;
  readonly done: boolean;
  readonly error?: string;
  readonly retry_at?: number;
  readonly waiting?: string;
  readonly pairs?: { readonly listed: number; readonly of: number };
  readonly unavailable?: { readonly from: number; readonly to: number };
}

export interface RegistryBackfillSettings {
  /** Most blocks one step reads before its findings and progress are written. */
  readonly stretchBlocks: number;
  /** eth_getLogs calls one step makes at most, as the node's range cap allows (steps shrink on capped nodes). */
  readonly callsPerStretch: number;
  /** V2 pairs listed per step (one aggregate3 of `allPairs`, one of their tokens). */
  readonly pairsPerCall: number;
  /** First wait after a failure; it doubles with each failure in a row, up to `maxRetryMs`. */
  readonly retryMs: number;
  readonly maxRetryMs: number;
  /** Wait between looks while the range is not known yet. */
  readonly waitMs: number;
}

export const REGISTRY_BACKFILL_DEFAULTS: RegistryBackfillSettings = {
  stretchBlocks: 100_000,
  callsPerStretch: 20,
  pairsPerCall: 500,
  retryMs: 5_000,
  maxRetryMs: 300_000,
  waitMs: 2_000,
};

export interface RegistryBackfillDeps {
  readonly db: Db;
  /** The process's index memory, told what the backfill writes (writeDiscovered). */
  readonly cache: IndexCache | undefined;
  /** The chain's RPC handle for background work (not a request's). */
  readonly rpc: (chainId: number) => ChainRpc | undefined;
  /** First block the index holds (ingest status): 0 when it holds the whole history, undefined while unknown. */
  readonly indexedFrom: (chainId: number) => number | undefined;
  readonly now: () => number;
  readonly settings?: Partial<RegistryBackfillSettings>;
  readonly warn?: (message: string, chainId: number) => void;
}

export interface RegistryBackfill {
  /** Starts (or resumes from its record) the chain's backfill in the background; again after it is done only if the index's start moved up. */
  readonly start: (chain: ChainConfig) => void;
  readonly progress: (chainId: number) => BackfillProgress | undefined;
  /** Settles when the chain's backfill is done (at once when none was started), or when it is stopped. */
  readonly done: (chainId: number) => Promise<void>;
  /** Stops every chain's backfill after the step under way is written (the process is ending). */
  readonly stop: () => Promise<void>;
}

/** The range cannot be known yet: looked at again shortly, not a failure. */
class NotReady {
  constructor(readonly reason: string) {}
}

/** One chain's backfill in this process. */
interface Job {
  readonly chain: ChainConfig;
  record: BackfillRecord | undefined;
  calls: number;
  finished: boolean;
  stopped: boolean;
  error?: string | undefined;
  retryAt?: number | undefined;
  waiting?: string | undefined;
  failures: number;
  unavailable?: { from: number; to: number } | undefined;
  /** The base handle `rpc` was made over: a new one (the chain's clients rebuilt) gets a new wrapper. */
  base?: ChainRpc;
  rpc?: ChainRpc;
  settled: Promise<void>;
  settle: () => void;
  /** Ends the wait between attempts early (stop). */
  wake?: (() => void) | undefined;
  loop?: Promise<void>;
}

/** The failure of an Effect as itself (a ChainRpcError), not wrapped: its message is what progress shows. */
const run = async <A, E>(effect: Effect.Effect<A, E>): Promise<A> => {
  const exit = await Effect.runPromiseExit(effect);
  if (Exit.isSuccess(exit)) return exit.value;
  const failure = Cause.failureOption(exit.cause);
  throw Option.isSome(failure) ? failure.value : Cause.squash(exit.cause);
};

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Reads the registry's own events from before the index's first block, so that the index knows
 * the pools (with hooks or odd quote tokens too), lending tokens and yield-splitting tokens of the
 * registry's whole history, as an index built from the chain's first block would (issue 35, item 1).
 * Per chain, in the background: address-filtered eth_getLogs on the registry's factories,
 * PoolManagers, configurators, comptrollers and Pendle factories, topics limited to their creation
 * events (registrySources.ts), in steps over blocks from each deployment's `start_block` (or where
 * the node's logs begin, if later) to `indexed_from - 1`; each step's events become the very
 * records the indexer writes for them (planRegistryLogs.ts), written with the step's progress in
 * one batch (BackfillRecord.ts), so a restart resumes after the last step written. Where the node
 * keeps no logs for part of a V2 factory's history, its pairs are listed through `allPairs`
 * instead (v2Pairs.ts). A failure is tried again later, waiting longer each time; nothing it
 * meets ends the process.
 */
export const makeRegistryBackfill = (deps: RegistryBackfillDeps): RegistryBackfill => {
  const settings = { ...REGISTRY_BACKFILL_DEFAULTS, ...deps.settings };
  const jobs = new Map<number, Job>();

  const save = async (job: Job, record: BackfillRecord, ops: Parameters<typeof writeDiscovered>[2] = []) => {
    await writeDiscovered(deps.db, deps.cache, [
      ...ops,
      { type: "put", key: backfillRecordKey(job.chain.chain_id), value: record },
    ]);
    job.record = record;
  };

  /** The chain's RPC handle as the backfill uses it (backfillRpc.ts), made again over a new base. */
  const rpcOf = (job: Job, base: ChainRpc): ChainRpc => {
    if (job.base !== base || job.rpc === undefined) {
      job.base = base;
      job.rpc = backfillRpc(base, (count) => {
        job.calls += count;
      });
    }
    return job.rpc;
  };

  const readsOf = (rpc: ChainRpc): RegistryReads => ({
    underlying: (contracts) => readUnderlying(rpc, contracts),
    metadata: (tokens) => readTokenMetadata(rpc, tokens),
  });

  /** The record to go on from: the stored one if it read the same registry, moved to what the node and the index say now. */
  const resume = async (job: Job, fingerprint: string, from: number, to: number): Promise<BackfillRecord> => {
    const stored = (await deps.db.get(backfillRecordKey(job.chain.chain_id))) as BackfillRecord | undefined;
    // A registry changed in the chains file, or a node that keeps older logs than the one the record
    // was begun with (an archive node in place of a pruned one), is read again from the start: the
    // views take the same records again, and what the first pass could not see is read too.
    if (stored === undefined || stored.sources !== fingerprint || from < stored.from)
      return { sources: fingerprint, from, to, next: from, logs: 0 };
    // The node stopped keeping logs the backfill had not read yet (a pruned node's window moved up).
    const gap = stored.next < from && stored.next <= stored.to;
    return {
      ...stored,
      to: Math.max(stored.to, to),
      next: Math.max(stored.next, from),
      ...(gap || stored.gap === true ? { gap: true } : {}),
      done: stored.done === true && stored.to >= to,
    };
  };

  /** The logs part: steps over `next`..`to`, each written with its progress. */
  const readLogs = async (
    job: Job,
    rpc: ChainRpc,
    sources: ReadonlyArray<RegistrySource>,
    start: BackfillRecord,
  ): Promise<BackfillRecord | undefined> => {
    let record = start;
    const reads = readsOf(rpc);
    while (record.next <= record.to) {
      if (job.stopped) return undefined;
      const blocks = Math.max(
        1,
        Math.min(settings.stretchBlocks, rpc.logsRange.ceiling * settings.callsPerStretch),
      );
      const end = Math.min(record.to, record.next + blocks - 1);
      const filter = registryFilter(sources, end);
      const logs =
        filter === undefined ? [] : await run(getLogs(rpc, filter, record.next, end, { keptOnly: true }));
      const planned = await planRegistryLogs(deps.db, job.chain, logs, reads);
      // The first PairCreated of each V2 factory in the range bounds the pairs older than the node's logs.
      let firstPairCount = record.firstPairCount;
      for (const log of logs) {
        if (log.removed === true) continue;
        const event = decodeLog(normalizeLog(log));
        if (event?.kind !== "v2.pairCreated" || firstPairCount?.[event.address] !== undefined) continue;
        firstPairCount = { ...firstPairCount, [event.address]: Number(event.allPairsLength) };
      }
      record = {
        ...record,
        next: end + 1,
        logs: record.logs + logs.length,
        ...(firstPairCount === undefined ? {} : { firstPairCount }),
      };
      await save(job, record, planned.ops);
    }
    return record;
  };

  /** The listing part: V2 factories whose history the node's logs do not cover, through `allPairs`. */
  const listPairs = async (
    job: Job,
    rpc: ChainRpc,
    sources: ReadonlyArray<RegistrySource>,
    start: BackfillRecord,
  ): Promise<BackfillRecord | undefined> => {
    let record = start;
    const factories = sources
      .filter((s) => s.kind === "v2" && (s.start < record.from || record.gap === true))
      .map((s) => s.address);
    const unknown = factories.filter((factory) => record.pairs?.[factory] === undefined);
    if (unknown.length > 0) {
      const counts = await readPairCounts(rpc, unknown);
      const at = rpc.bestHead() ?? record.to;
      let pairs = record.pairs ?? {};
      unknown.forEach((factory, i) => {
        const count = counts[i];
        if (count === undefined)
          deps.warn?.(
            `registry backfill on ${job.chain.name} (${job.chain.chain_id}): V2 factory ${factory} does not answer allPairsLength(); its pairs older than the node's logs are not listed`,
            job.chain.chain_id,
          );
        const first = record.gap === true ? undefined : record.firstPairCount?.[factory];
        // Pairs from the first one the logs showed on were read from the logs (and those after the
        // index's first block are the indexer's): only the older ones are listed.
        const until = Math.max(0, first === undefined ? (count ?? 0) : Math.min(count ?? 0, first - 1));
        pairs = { ...pairs, [factory]: { next: 0, until, at } };
      });
      record = { ...record, pairs };
      await save(job, record);
    }
    for (const factory of factories) {
      for (;;) {
        const state = record.pairs![factory]!;
        if (state.next >= state.until) break;
        if (job.stopped) return undefined;
        const end = Math.min(state.until, state.next + settings.pairsPerCall);
        const listed = await readPairs(rpc, factory, state.next, end);
        const ops = await planListedPairs(
          deps.db,
          job.chain,
          factory,
          listed,
          state.at,
          readsOf(rpc).metadata,
        );
        record = { ...record, pairs: { ...record.pairs, [factory]: { ...state, next: end } } };
        await save(job, record, ops);
      }
    }
    return record;
  };

  /** One attempt at the whole backfill: true when done, false when stopped; throws when it cannot go on. */
  const attempt = async (job: Job): Promise<boolean> => {
    const chainId = job.chain.chain_id;
    const base = deps.rpc(chainId);
    if (base === undefined) throw new NotReady("no RPC client for this chain");
    const indexedFrom = deps.indexedFrom(chainId);
    if (indexedFrom === undefined) throw new NotReady("where the chain's index starts is not known yet");
    const sources = registrySources(job.chain);
    if (indexedFrom === 0 || sources.length === 0) {
      // The index holds the whole history (or there is no registry to read): nothing to do.
      job.record = { sources: sourcesFingerprint(sources), from: 0, to: -1, next: 0, logs: 0, done: true };
      return true;
    }
    const logsFrom = base.capabilities().logsFrom;
    if (logsFrom === undefined) throw new NotReady("which blocks the node keeps logs for is not known yet");
    const rpc = rpcOf(job, base);
    const earliest = sources[0]!.start;
    const to = indexedFrom - 1;
    const from = Math.min(Math.max(earliest, logsFrom), to + 1);
    job.unavailable = earliest < from ? { from: earliest, to: from - 1 } : undefined;
    job.waiting = undefined;
    let record = await resume(job, sourcesFingerprint(sources), from, to);
    job.record = record;
    if (record.done === true) return true;
    const read = await readLogs(job, rpc, sources, record);
    if (read === undefined) return false;
    const listed = await listPairs(job, rpc, sources, read);
    if (listed === undefined) return false;
    record = { ...listed, done: true };
    await save(job, record);
    return true;
  };

  const pause = (job: Job, ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      // A backfill waiting to try again never keeps the process alive.
      timer.unref();
      job.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => {
      job.wake = undefined;
    });

  const loop = async (job: Job) => {
    while (!job.stopped) {
      try {
        if (await attempt(job)) {
          job.finished = true;
          job.error = undefined;
          job.retryAt = undefined;
          job.failures = 0;
        }
        break;
      } catch (error) {
        if (error instanceof NotReady) {
          job.waiting = error.reason;
          await pause(job, settings.waitMs);
          continue;
        }
        job.failures++;
        job.error = messageOf(error).slice(0, 300);
        const delay = Math.min(settings.maxRetryMs, settings.retryMs * 2 ** (job.failures - 1));
        job.retryAt = deps.now() + delay;
        deps.warn?.(
          `registry backfill on ${job.chain.name} (${job.chain.chain_id}) failed (${job.failures} in a row), trying again in ${Math.round(delay / 1000)} s: ${job.error}`,
          job.chain.chain_id,
        );
        await pause(job, delay);
      }
    }
    job.settle();
  };

  const launch = (chain: ChainConfig, previous: Job | undefined) => {
    let settle = () => {};
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const job: Job = {
      chain,
      record: previous?.record,
      calls: previous?.calls ?? 0,
      finished: false,
      stopped: false,
      failures: 0,
      settled,
      settle,
    };
    jobs.set(chain.chain_id, job);
    job.loop = loop(job).catch((error: unknown) => {
      // Never reached (loop catches every failure); kept so no rejection can escape to the process.
      deps.warn?.(`registry backfill on ${chain.name} stopped: ${messageOf(error)}`, chain.chain_id);
      job.settle();
    });
  };

  const progressOf = (job: Job): BackfillProgress => {
    const record = job.record;
    const pairs = Object.values(record?.pairs ?? {});
    return {
      from: record?.from ?? 0,
      to: record?.to ?? -1,
      next: record?.next ?? 0,
      logs: record?.logs ?? 0,
      calls: job.calls,
      done: job.finished,
      ...(job.error === undefined ? {} : { error: job.error }),
      ...(job.retryAt === undefined ? {} : { retry_at: job.retryAt }),
      ...(job.waiting === undefined ? {} : { waiting: job.waiting }),
      ...(pairs.length === 0
        ? {}
        : {
            pairs: {
              listed: pairs.reduce((sum, p) => sum + p.next, 0),
              of: pairs.reduce((sum, p) => sum + p.until, 0),
            },
          }),
      ...(job.unavailable === undefined ? {} : { unavailable: job.unavailable }),
    };
  };

  return {
    start: (chain) => {
      const job = jobs.get(chain.chain_id);
      if (job !== undefined && !job.stopped) {
        if (!job.finished) return;
        // Done: again only if the index's first block moved up (ingest skipped history the node lost).
        const indexedFrom = deps.indexedFrom(chain.chain_id);
        if (indexedFrom === undefined || indexedFrom - 1 <= (job.record?.to ?? -1)) return;
      }
      launch(chain, job);
    },
    progress: (chainId) => {
      const job = jobs.get(chainId);
      return job === undefined ? undefined : progressOf(job);
    },
    done: (chainId) => jobs.get(chainId)?.settled ?? Promise.resolve(),
    stop: async () => {
      const running = [...jobs.values()];
      for (const job of running) {
        job.stopped = true;
        job.wake?.();
      }
      await Promise.all(running.map((job) => job.loop));
    },
  };
};
