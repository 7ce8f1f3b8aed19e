import type { ChainConfig } from "../chains/ChainsConfig.js";
import type { BlockRef } from "../chains/readEachChain.js";
import { type ChainRpc, DEFAULT_CALL_BUDGET_MS } from "../chains/rpc/ChainRpc.js";
import type { IndexCache } from "../indexer/IndexCache.js";
import type { IndexedWallets } from "../indexer/IndexedWallets.js";
import { walletTokenView } from "../indexer/indexKeys.js";
import { writeDiscovered } from "../indexer/writeDiscovered.js";
import { makePromiseSlots } from "../lib/promiseSlots.js";
import type { Db, Operation } from "../storage/Level.js";
import { readNow } from "../storage/readNow.js";
import { makeAnswerHolds } from "./answerHolds.js";
import type { DiscoveryProgress } from "./DiscoveryProgress.js";
import { type DiscoveryRecord, discoveryRecordKey } from "./DiscoveryRecord.js";
import type { DiscoveryStateCounts } from "./discoveryCounts.js";
import { heldTokenOps } from "./heldTokenOps.js";
import { makePrefetchQueue } from "./prefetchQueue.js";
import type { RegistryBackfill } from "./registryBackfill.js";
import { ScanLineFull } from "./scanBatches.js";
import { sweepBalances } from "./sweepBalances.js";
import { type TokenUniverse, tokenUniverse, type UniverseSources } from "./tokenUniverse.js";
import { makeWalletLogScans } from "./walletLogScans.js";

/** What a finder is given: one wallet (or none, for a chain's own lists) on one chain at one block. */
export interface FinderContext {
  readonly chain: ChainConfig;
  readonly block: BlockRef;
  readonly rpc: ChainRpc;
  readonly db: Db;
}

/** Writes for the index views, and a note when the finder read less than there was. */
export interface Findings {
  readonly ops: ReadonlyArray<Operation>;
  readonly truncated?: string;
}

/**
 * The parts of discovery that find position candidates (docs/real-chains.md): per chain, lists
 * the chain keeps (lending reserves, markets); per wallet, what it holds now (enumerable NFTs,
 * restaking, borrows); and NFTs the wallet received by id, from its transfer logs.
 */
export interface Finders {
  readonly chain: ReadonlyArray<(context: FinderContext) => Promise<Findings>>;
  readonly wallet: ReadonlyArray<(context: FinderContext, wallet: string) => Promise<Findings>>;
  /** Contracts whose NFTs are resolved by id, and the resolver. */
  readonly nftContracts: (chain: ChainConfig) => ReadonlySet<string>;
  readonly nftIds: (
    context: FinderContext,
    wallet: string,
    ids: ReadonlyMap<string, ReadonlyArray<bigint>>,
  ) => Promise<Findings>;
}

export interface DiscoverySettings {
  /** A wallet swept longer ago than this is swept again (in the background) on its next request. */
  readonly resweepMs: number;
  /** Most tokens one chain's universe holds (tokenUniverse). */
  readonly universeMax: number;
  /** How long a chain's universe, once read from the index, is swept without reading it again. */
  readonly universeTtlMs: number;
  /** Blocks one step of a wallet's log scan covers (progress is saved after each). */
  readonly scanStretch: number;
  /** Longest a wallet's position finders and log scan wait for the requests answering about it (`hold`). */
  readonly holdMaxMs: number;
  /**
   * How long after an answer is made the work it held back starts: the reply still has to leave
   * through NATS and the gateway, which may share this process's thread with that work.
   */
  readonly answerGraceMs: number;
  /** Sweeps (wallet and chain) and batches of log scans running at once in this process. */
  readonly sweeps: number;
  /**
   * Most first sweeps waiting for one of those: a client asking about ever new addresses faster
   * than the nodes answer would otherwise grow the line, and this process's memory, without bound,
   * and every real wallet's first answer would wait behind it. A wallet asked beyond it fails its
   * discovery at once (its answers name the chain in their errors) and is tried on its next request.
   */
  readonly sweepQueueMax: number;
  readonly scans: number;
  /**
   * Most log scans asked by requests that may wait for a batch at once: a whole history takes far
   * longer to read than a sweep, so a client asking about ever new addresses would grow this line
   * too. A wallet asked beyond it keeps its sweep's answer, says its history was not read
   * (scan_failed), and is queued again on a request after `retryMs`. Webhooks' wallets are not
   * counted: the prefetch queue paces and bounds them.
   */
  readonly scanQueueMax: number;
  /**
   * Most wallets one batch of log scans names in its filters (walletTransferFilters). geth takes
   * 1,000 alternatives per topic (`--rpc.logquerylimit`), and 200 keep a request near 14 KB, under
   * the body caps of proxies in front of nodes; a node that takes fewer is asked in halves.
   */
  readonly scanBatch: number;
  /** A failed discovery is tried again on a request this long after it failed. */
  readonly retryMs: number;
  /** How long a sweep waits for its chain's registry backfill before sweeping without it. */
  readonly registryWaitMs: number;
  /** Most (chain, wallet) pairs waiting to be discovered for webhooks (`prefetch`). */
  readonly prefetchMax: number;
  /** Most of those started per second on each chain (one runs at a time, over all chains). */
  readonly prefetchPerSecond: number;
  /**
   * Most settled jobs (complete or failed) kept in memory, over all chains; the least recently
   * asked beyond it are let go. Each wallet's record is in LevelDB: one asked again is read from
   * there (one read), and is complete at once if it was. Bounds what the wallets clients ask about
   * cost this process.
   */
  readonly keptSettled: number;
}

/** Least time between tries of a first sweep whose tokens were read and whose position finders failed. */
const FINDERS_RETRY_MS = 5_000;

/** A wallet's first sweep turned away: `sweepQueueMax` others already wait for theirs. */
class SweepLineFull extends Error {
  constructor(max: number) {
    super(
      `${max} wallets already wait for their first sweep on this worker; this one is swept when asked again`,
    );
  }
}

export const DISCOVERY_DEFAULTS: DiscoverySettings = {
  resweepMs: 24 * 3600_000,
  universeMax: 50_000,
  universeTtlMs: 60_000,
  scanStretch: 100_000,
  holdMaxMs: 2_000,
  answerGraceMs: 10,
  sweeps: 8,
  sweepQueueMax: 10_000,
  scans: 2,
  scanQueueMax: 10_000,
  scanBatch: 200,
  retryMs: 30_000,
  registryWaitMs: 10_000,
  prefetchMax: 100_000,
  prefetchPerSecond: 5,
  keptSettled: 200_000,
};

export interface DiscoveryDeps {
  readonly db: Db;
  readonly cache: IndexCache | undefined;
  /** The chain's RPC handle for background work (not a request's). */
  readonly rpc: (chainId: number) => ChainRpc | undefined;
  /** The block requests read at: the index's checkpoint. */
  readonly checkpoint: (chainId: number) => Promise<BlockRef | undefined>;
  /** First block the index holds (ingest status); 0 when it holds the whole history. */
  readonly indexedFrom: (chainId: number) => number | undefined;
  /**
   * Whose token touches the index records (IndexedWallets.ts): a wallet is marked as its discovery
   * starts, and its log scan reads up to where the index holds its touches. Every wallet's when absent.
   */
  readonly wallets?: IndexedWallets;
  readonly universe: UniverseSources;
  readonly finders: Finders;
  /** The chains' registry backfills: their pools and markets join the universe once read. */
  readonly registry?: RegistryBackfill;
  /**
   * Starts the factory pool lookups a first answer will need for the tokens a sweep found (the
   * process's FactoryPools, whose in-flight lookups that answer's own then waits for), while the
   * found tokens' metadata is read and written: one round trip off the answer's path.
   */
  readonly prefetchPools?: (chain: ChainConfig, tokens: ReadonlyArray<string>, block: BlockRef) => void;
  readonly settings: DiscoverySettings;
  readonly now: () => number;
  readonly warn: (message: string, chainId: number) => void;
}

/**
 * What a request needs of a wallet's sweep before it reads: balances need its tokens (the
 * `balanceOf` sweep and the found tokens' metadata), positions need the position finders too.
 */
export type DiscoveryNeed = "tokens" | "positions";

/** One wallet's discovery on one chain in this process. */
interface Job {
  state: "sweeping" | "scanning" | "complete" | "failed";
  /**
   * A resweep of a wallet already discovered (its sweep older than `resweepMs`, or made before its
   * chain's registry backfill was done): in the background, so requests neither wait for it nor
   * are told of it. The index already holds what the wallet did since its last sweep; the resweep
   * only adds tokens that joined the universe since.
   */
  background?: boolean;
  /** Settles when the sweep's tokens are written (or the sweep failed): what a balances request waits for. */
  tokensSwept: Promise<void>;
  tokensReady: boolean;
  /** Settles when the whole sweep is done (or failed): what a positions request waits for. */
  swept: Promise<void>;
  record: DiscoveryRecord;
  /** The sweep's write of the tokens it found: the wallet's versions before and after it, and the tokens. */
  sweepWrite?: {
    readonly previous: number;
    readonly version: number;
    readonly tokens: ReadonlyArray<string>;
  };
  error?: string;
  failedAt?: number;
  /**
   * It failed only because its log scan was turned away (a request's, beyond scanQueueMax), its
   * sweep and finders having succeeded: a webhook that asks for the wallet starts the scan again
   * at once, unbounded, instead of taking the wallet for known (`turnedAwayOnly`).
   */
  failedForScanLine?: boolean;
  truncated: Array<string>;
}

const jobKey = (chainId: number, wallet: string) => `${chainId}|${wallet}`;

/**
 * Floors of the write versions of wallets let go (see `versions`): a let-go moves the cache keys of
 * one wallet in this many, not of all. 512 KB, a power of two (a wallet's floor is its address's
 * last 16 bits).
 */
const VERSION_FLOORS = 65_536;

/** What a complete job waits for: nothing. */
const SETTLED: Promise<void> = Promise.resolve();

/**
 * Finds what a wallet holds on a chain where the index lacks its history (docs/real-chains.md):
 * first a sweep of the chain's token universe with `balanceOf` and the position finders, at the
 * block requests read at, then a scan of the wallet's transfer logs over the history the node
 * keeps and the index lacks, newest first, saving its progress as it goes. Everything found is
 * written into the index views, so the request path reads it as it reads live blocks; each write
 * bumps the wallet's `version`, which read caches key on. Nothing runs for a chain whose index
 * holds the whole history.
 */
export const makeWalletDiscovery = (deps: DiscoveryDeps) => {
  /**
   * Each wallet's job on each chain: every one running, and the `keptSettled` complete or failed ones
   * asked about last, each kept small (`completed`), so neither a webhook's hundreds of thousands
   * of wallets nor clients asking about ever more wallets grow the process without bound.
   */
  const jobs = new Map<string, Job>();
  /**
   * Webhooks that announced a wallet while its job ran, and so found it known, by job key with that
   * job. Should the job's log scan then be turned away (`failedForScanLine`), they ask for it again,
   * and their turn reads it; a webhook that stops watching the wallet first takes its ask back.
   */
  const asks = new Map<string, { readonly job: Job; readonly by: Set<string> }>();
  /** Keys of the jobs not complete, which `stats` walks; the complete ones are counted by chain. */
  const unfinished = new Set<string>();
  const completeByChain = new Map<number, number>();
  const countComplete = (chainId: number, by: number) =>
    completeByChain.set(chainId, (completeByChain.get(chainId) ?? 0) + by);

  /**
   * Where each (chain, wallet)'s writes stand, as the reading of one clock that every write LevelDB
   * has taken moves on: a request's read keys its cache by this. A wallet's entry goes when its job
   * is let go, so the entries are as bounded as the jobs (`keptSettled`); a write that lands after
   * that (a log scan that outlived its failed job) makes an entry that is let go as a settled job
   * is. A wallet without one reads as its floor: one of VERSION_FLOORS, picked by its address's
   * last hex digits whatever the chain, which is the clock when a wallet of that floor with an
   * entry was last let go. No version a wallet had before is above its floor, and one equal to it
   * means nothing was written since, so a read cached before a write is never served after it, and
   * a wallet's version never returns to an earlier value. With one floor for all, every let-go
   * would have moved every other wallet's cache keys.
   */
  const versions = new Map<string, number>();
  let versionClock = 0;
  const floors = new Float64Array(VERSION_FLOORS);
  // Addresses are hex (requests validate them), so their last digits spread wallets evenly.
  const floorOf = (key: string) => Number.parseInt(key.slice(-4), 16) & (VERSION_FLOORS - 1);
  const versionOf = (key: string) => versions.get(key) ?? floors[floorOf(key)]!;
  const forgetVersion = (key: string) => {
    if (versions.delete(key)) floors[floorOf(key)] = versionClock;
  };

  /**
   * Keys of the settled jobs in memory (complete or failed), the least recently asked first: past
   * `keptSettled`, the oldest are let go. Also the keys of write versions whose wallet has no job
   * (a write that landed after its job was let go), let go the same way. A settled job's record is
   * in LevelDB (a failed first sweep has none, and is swept again as it would be anyway); the one
   * thing that may still run for it, the log scan of a job whose finders failed, saves into
   * whatever job is current.
   */
  const settledOrder = new Set<string>();
  /** Times a key was marked settled or asked about again (`settledGeneration`). */
  let settledTouches = 0;
  /** Marks a settled job as just asked about, letting go of the least recently asked over the bound. */
  const keepSettled = (key: string) => {
    settledTouches += 1;
    settledOrder.delete(key);
    settledOrder.add(key);
    for (const oldest of settledOrder) {
      if (settledOrder.size <= deps.settings.keptSettled) break;
      settledOrder.delete(oldest);
      const job = jobs.get(oldest);
      jobs.delete(oldest);
      forgetVersion(oldest);
      if (job?.state === "complete") countComplete(Number(oldest.slice(0, oldest.indexOf("|"))), -1);
      else unfinished.delete(oldest);
    }
  };

  /** Makes `job` the wallet's job on the chain, keeping the counts `stats` reads. */
  const setJob = (chainId: number, key: string, job: Job) => {
    if (jobs.get(key)?.state === "complete") countComplete(chainId, -1);
    settledOrder.delete(key);
    jobs.set(key, job);
    if (job.state === "complete") {
      unfinished.delete(key);
      countComplete(chainId, 1);
      keepSettled(key);
    } else {
      unfinished.add(key);
      if (job.state === "failed") keepSettled(key);
    }
  };

  /**
   * The job has just completed: unless another job replaced it meanwhile, it is kept as its record
   * alone (about a third of a running job's memory; its sweep's token list, kept for requests made
   * while the sweep wrote, is dropped: such a request then reads the wallet's tokens again).
   */
  const completed = (chainId: number, key: string, job: Job) => {
    if (jobs.get(key) !== job || !unfinished.delete(key)) return;
    countComplete(chainId, 1);
    jobs.set(key, {
      state: "complete",
      tokensSwept: SETTLED,
      tokensReady: true,
      swept: SETTLED,
      record: job.record,
      truncated: job.truncated,
    });
    keepSettled(key);
  };
  /**
   * Tokens a sweep found that LevelDB is still writing, by (chain, wallet): requests answer them from
   * here meanwhile (`tokensPending`).
   */
  const pendingSweeps = new Map<string, ReadonlyArray<string>>();
  const sweepSlots = makePromiseSlots(deps.settings.sweeps);
  /** When each full line last said so in the log (SweepLineFull, ScanLineFull). */
  const lineFullSaidAt = new Map<string, number>();
  const chainFinds = new Map<number, { at: number; done: Promise<ReadonlyArray<Operation>> }>();

  /**
   * When the index last found it had missed chain events of unknown chains (indexTrimmed): sweeps
   * from before are stale on every chain.
   */
  let trimmedAt = 0;
  /** When the index last found a chain's own blocks missing (indexTrimmed with the chain): only its sweeps are stale. */
  const chainTrimmedAt = new Map<number, number>();
  const trimmedAtOf = (chainId: number) => Math.max(trimmedAt, chainTrimmedAt.get(chainId) ?? 0);
  /**
   * Whether the index may lack the chain's history of a wallet: a chain indexed from its first block
   * needs no discovery, unless the index has since missed its events or records discovered wallets only.
   */
  const needed = (chain: ChainConfig) =>
    deps.indexedFrom(chain.chain_id) !== 0 ||
    trimmedAtOf(chain.chain_id) > 0 ||
    deps.wallets?.partial(chain) === true;
  /** Where the index holds the wallet's touches from on the chain (walletLogScans' `recordedFrom`). */
  const recordedFrom = (chain: ChainConfig, wallet: string): number | undefined => {
    const indexedFrom = deps.indexedFrom(chain.chain_id);
    if (indexedFrom === undefined) return undefined;
    return deps.wallets === undefined ? indexedFrom : deps.wallets.firstRecorded(chain, wallet, indexedFrom);
  };
  /**
   * How many times each chain's universe may have widened: its lists written, its registry
   * backfill done. A universe read before the last of them is read again, and sweeps wait for it
   * (a count, not a time: a read begun in the millisecond a widening lands must not pass for after it).
   */
  const widenings = new Map<number, number>();
  const widen = (chainId: number) => widenings.set(chainId, (widenings.get(chainId) ?? 0) + 1);
  /** Chains whose finished registry backfill is counted in `widenings`. */
  const registryCounted = new Set<number>();
  /** Counts the chain's registry backfill once it is done, at most once. */
  const countRegistry = (chainId: number) => {
    if (registryCounted.has(chainId) || deps.registry?.progress(chainId)?.done !== true) return;
    registryCounted.add(chainId);
    widen(chainId);
  };
  const watched = new Set<number>();
  const watchRegistry = (chainId: number) => {
    if (deps.registry === undefined || watched.has(chainId)) return;
    watched.add(chainId);
    deps.registry
      .done(chainId)
      .then(() => {
        countRegistry(chainId);
      })
      .catch(() => undefined);
  };

  /**
   * Writes `ops`; answers the wallet's versions just before and after this write, once LevelDB has
   * it (undefined when nothing was written).
   */
  const write = async (
    chainId: number,
    wallet: string | undefined,
    ops: ReadonlyArray<Operation>,
  ): Promise<{ readonly previous: number; readonly version: number } | undefined> => {
    if (ops.length === 0) return undefined;
    await writeDiscovered(deps.db, deps.cache, ops);
    if (wallet === undefined) return undefined;
    const key = jobKey(chainId, wallet);
    const previous = versionOf(key);
    versionClock += 1;
    versions.set(key, versionClock);
    // A write for a settled wallet (a log scan that outlived its failed job, which may even have
    // been let go) marks it settled anew: a wallet is let go only `keptSettled` settlings after
    // its last write, as readers of `settledGeneration` rely on.
    if (!jobs.has(key) || settledOrder.has(key)) keepSettled(key);
    return { previous, version: versionClock };
  };

  /** The chain's own lists (lending reserves, markets), read once and again after `resweepMs`. */
  const chainLists = (context: FinderContext): Promise<ReadonlyArray<Operation>> => {
    const known = chainFinds.get(context.chain.chain_id);
    if (known !== undefined && deps.now() - known.at < deps.settings.resweepMs) return known.done;
    const done = Promise.all(deps.finders.chain.map((find) => find(context))).then(async (found) => {
      const ops = found.flatMap((f) => f.ops);
      await write(context.chain.chain_id, undefined, ops);
      // Once written: a universe read from here on holds what they added.
      widen(context.chain.chain_id);
      return ops;
    });
    chainFinds.set(context.chain.chain_id, { at: deps.now(), done });
    done.catch(() => chainFinds.delete(context.chain.chain_id));
    return done;
  };

  /**
   * What a sweep waits for before reading the universe: the chain's registry backfill (its pools and
   * markets widen the universe; a devnet's or a full node's takes seconds), for at most
   * `registryWaitMs` after the chain's first sweep asked. Once per chain: on a chain whose backfill
   * takes hours, only the first sweeps wait, and every wallet swept without it is swept again
   * once it is in (its record's `registry_pending`, sweepStale).
   */
  const registryGates = new Map<number, Promise<void>>();
  const registryGate = (chainId: number): Promise<void> => {
    const registry = deps.registry;
    if (registry === undefined) return Promise.resolve();
    let gate = registryGates.get(chainId);
    if (gate === undefined) {
      let timer: NodeJS.Timeout | undefined;
      gate = Promise.race([
        registry.done(chainId).catch(() => undefined),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, deps.settings.registryWaitMs);
          timer.unref?.();
        }),
      ]).finally(() => clearTimeout(timer));
      registryGates.set(chainId, gate);
    }
    return gate;
  };

  /**
   * Each chain's universe, read from the index again once per `universeTtlMs` (50,000 keys take
   * 0.2 to 0.5 s) and once the chain's lists or registry backfill added tokens (`widenings`). A
   * token first seen in a live block within that while is in the index for the wallets it moved
   * where the chain records every wallet; where it records discovered wallets only, a wallet not yet
   * marked finds it through its log scan (recent blocks, which every node keeps), and its answers
   * say discovery is in progress until then.
   */
  const universes = new Map<
    number,
    { readonly at: number; readonly widenings: number; readonly tokens: Promise<TokenUniverse> }
  >();
  /** Chains whose universe is being read again while sweeps go on with the one before. */
  const rereading = new Set<number>();
  const readUniverse = (chain: ChainConfig) => ({
    at: deps.now(),
    widenings: widenings.get(chain.chain_id) ?? 0,
    tokens: tokenUniverse(deps.db, chain, deps.universe, deps.settings.universeMax),
  });
  const universeOf = (chain: ChainConfig): Promise<TokenUniverse> => {
    const chainId = chain.chain_id;
    // Counted here too: a sweep that saw the backfill done must not get a universe from before it,
    // whether or not the watch on its end has run yet.
    countRegistry(chainId);
    const known = universes.get(chainId);
    const age = known === undefined ? 0 : deps.now() - known.at;
    // None yet, one read before the chain's lists or registry widened it, or one not read again
    // for two intervals (a quiet chain): a sweep waits for a new one (a resweep made for the
    // registry's tokens must see them).
    if (
      known === undefined ||
      known.widenings !== (widenings.get(chainId) ?? 0) ||
      age >= 2 * deps.settings.universeTtlMs
    ) {
      const entry = readUniverse(chain);
      universes.set(chainId, entry);
      entry.tokens.catch(() => {
        if (universes.get(chainId) === entry) universes.delete(chainId);
      });
      return entry.tokens;
    }
    // Due again after universeTtlMs: read in the background (which a wallet's first answer would
    // otherwise wait for once a minute) while sweeps go on with this one, one background read at a
    // time per chain. A read that fails leaves this one, and the next sweep due tries again.
    if (age >= deps.settings.universeTtlMs && !rereading.has(chainId)) {
      rereading.add(chainId);
      const entry = readUniverse(chain);
      entry.tokens
        .then(
          () => {
            // Kept unless another replaced this one meanwhile (a widened read, waited for).
            if (universes.get(chainId) === known) universes.set(chainId, entry);
          },
          () => undefined,
        )
        .finally(() => rereading.delete(chainId));
    }
    return known.tokens;
  };

  const saveRecord = (chainId: number, wallet: string, job: { readonly record: DiscoveryRecord }) =>
    deps.db.put(discoveryRecordKey(chainId, wallet), job.record);

  /**
   * The universe's `balanceOf` sweep and the position finders, at the block requests read at.
   * The two run side by side and write apart: the tokens (with their metadata) as soon as they
   * are read, calling `tokens.answerable` once a request can answer them and `tokens.stored` once
   * LevelDB holds them, so a balances request answers without waiting for the finders.
   */
  const sweep = async (
    chain: ChainConfig,
    wallet: string,
    job: Job,
    rpc: ChainRpc,
    signal: { readonly answerable: () => void; readonly stored: () => void },
  ) => {
    // Its time is when it began, before the block it reads at: a trim reported while it ran (blocks
    // after that block the index never applied) leaves it stale, so it is swept again.
    const startedAt = deps.now();
    const block = await deps.checkpoint(chain.chain_id);
    if (block === undefined) throw new Error("the index has not reached this chain's head yet");
    const context: FinderContext = { chain, block, rpc, db: deps.db };
    await registryGate(chain.chain_id);
    // Swept without the registry's pools and markets: swept again once the backfill is done.
    const progress = deps.registry?.progress(chain.chain_id);
    const registryPending = progress !== undefined && !progress.done;
    await chainLists(context);
    const universe = await universeOf(chain);
    // What this sweep could not read in full, shown at once (a first answer does not wait for the
    // finders). What the last sweep could not read (job.truncated, from its record) is shown too
    // until this one has read everything: then only this sweep's notes stay.
    const notes: Array<string> = [];
    const note = (text: string) => {
      notes.push(text);
      if (!job.truncated.includes(text)) job.truncated.push(text);
    };
    const tokens = async () => {
      const swept = await sweepBalances(rpc, wallet, universe.tokens, block);
      deps.prefetchPools?.(
        chain,
        [
          ...swept.held.map(({ token }) => token),
          ...chain.tokens,
          ...(chain.wrapped_native === undefined ? [] : [chain.wrapped_native]),
        ],
        block,
      );
      const held = await heldTokenOps(
        deps.db,
        rpc,
        chain.chain_id,
        wallet,
        swept.held.map(({ token }) => ({ token, standard: "erc20", block: block.number })),
      );
      if (universe.dropped > 0)
        note(`${universe.dropped} tokens over the universe's cap of ${deps.settings.universeMax}`);
      // Only a write of its own: a sweep that found nothing new writes nothing, and its finds are
      // then in the index already.
      const found = swept.held.map(({ token }) => token);
      // When the index already describes every token found (their metadata and vault probes), all
      // a request needs of this write is the wallet's list of tokens, which is here: it may read
      // while LevelDB writes, instead of waiting on a disk thread that a loaded machine schedules
      // late (2-4 ms of a first answer measured on two busy cores, against 0.07 ms alone).
      const listOnly = held.length > 0 && held.every((op) => op.key.startsWith(walletTokenView));
      const key = jobKey(chain.chain_id, wallet);
      if (listOnly) {
        pendingSweeps.set(key, found);
        signal.answerable();
      }
      const written = await write(chain.chain_id, wallet, held).finally(() => pendingSweeps.delete(key));
      if (written !== undefined) job.sweepWrite = { ...written, tokens: found };
      signal.answerable();
      signal.stored();
    };
    const positions = async () => {
      await holds.free(findersKey(wallet));
      const found = await Promise.all(deps.finders.wallet.map((find) => find(context, wallet)));
      for (const f of found) if (f.truncated !== undefined) note(f.truncated);
      await write(
        chain.chain_id,
        wallet,
        found.flatMap((f) => f.ops),
      );
    };
    // Both settle before the sweep does, so a failure of one never leaves the other writing unseen.
    const [swept, found] = await Promise.allSettled([tokens(), positions()]);
    if (swept.status === "rejected") throw swept.reason;
    if (found.status === "rejected") throw found.reason;
    const { registry_pending: _, truncated: __, ...earlier } = job.record;
    job.truncated = notes;
    job.record = {
      ...earlier,
      swept_block: block.number,
      swept_at: startedAt,
      ...(registryPending ? { registry_pending: true } : {}),
      ...(job.truncated.length === 0 ? {} : { truncated: [...job.truncated] }),
    };
    await saveRecord(chain.chain_id, wallet, job);
  };

  /**
   * Requests answering about each wallet now (`hold`). While a balances answer is made, the
   * wallet's position finders and log scan wait; while a positions answer is made, its log scan
   * waits: their calls and what they find would compete with the answer's own calls for the node
   * and for this process (measured on the devnet: the finders beside a first sweep added 22 ms to
   * a balances answer, and 16 log scans of 20,000 blocks held its calls 40 ms).
   */
  const holds = makeAnswerHolds({
    maxWaitMs: deps.settings.holdMaxMs,
    graceMs: deps.settings.answerGraceMs,
  });
  const findersKey = (wallet: string) => `finders|${wallet}`;
  const scanKey = (wallet: string) => `scan|${wallet}`;

  /**
   * A log scan's progress, saved into the wallet's current job: a scan that outlives its job (the
   * job failed, say its finders, and a request started another) must not save the older job's
   * record, without the newer one's sweep, over the newer one's.
   */
  const saveScan = (chainId: number, wallet: string, scanned: { readonly record: DiscoveryRecord }) => {
    const current = jobs.get(jobKey(chainId, wallet));
    if (current === undefined || current === scanned) return saveRecord(chainId, wallet, scanned);
    const { scan, scan_truncated } = scanned.record;
    if (scan !== undefined)
      current.record = {
        ...current.record,
        scan,
        ...(scan_truncated === undefined ? {} : { scan_truncated }),
      };
    return saveRecord(chainId, wallet, current);
  };

  /** The last block of each chain's blocks the index jumped over (indexGap). */
  const gapTo = new Map<number, number>();
  const logScans = makeWalletLogScans({
    db: deps.db,
    rpc: deps.rpc,
    checkpoint: deps.checkpoint,
    recordedFrom,
    gapTo: (chainId) => gapTo.get(chainId),
    finders: deps.finders,
    settings: deps.settings,
    write,
    saveRecord: saveScan,
  });

  /** `byRequest`: started by a request for a wallet no webhook queued, whose log scan is bounded (scanQueueMax). */
  const run = (
    chain: ChainConfig,
    wallet: string,
    record: DiscoveryRecord,
    resweep: boolean,
    byRequest: boolean,
  ): Job => {
    const job: Job = {
      state: "sweeping",
      // Not after missed chain events, nor for the registry's pools and markets: what the index
      // may lack of the wallet then is told.
      ...(resweep &&
      record.swept_block !== undefined &&
      record.registry_pending !== true &&
      (record.swept_at ?? 0) >= trimmedAtOf(chain.chain_id)
        ? { background: true }
        : {}),
      tokensSwept: Promise.resolve(),
      tokensReady: false,
      swept: Promise.resolve(),
      record,
      // What its last sweep could not read in full still holds until a sweep reads it all.
      truncated: [...(record.truncated ?? [])],
    };
    const rpc = deps.rpc(chain.chain_id);
    const fail = (error: unknown) => {
      job.state = "failed";
      job.failedForScanLine = error instanceof ScanLineFull;
      job.error = error instanceof Error ? error.message : String(error);
      job.failedAt = deps.now();
      const key = jobKey(chain.chain_id, wallet);
      const asked = asks.get(key);
      const claims = asked?.job === job ? asked.by : undefined;
      forgetAsks(key, job);
      if (jobs.get(key) === job) {
        keepSettled(key);
        if (job.failedForScanLine && claims !== undefined)
          for (const by of claims) prefetchQueue.add([chain], [wallet], by);
      }
      // A full line turns wallets away by the thousand: said once a minute, not for each.
      if (error instanceof SweepLineFull || error instanceof ScanLineFull) {
        const line = error instanceof SweepLineFull ? "sweep" : "scan";
        if (deps.now() - (lineFullSaidAt.get(line) ?? Number.NEGATIVE_INFINITY) < 60_000) return;
        lineFullSaidAt.set(line, deps.now());
      }
      deps.warn(
        `discovery of ${wallet} on ${chain.name} (${chain.chain_id}) failed: ${job.error}`,
        chain.chain_id,
      );
    };
    if (rpc === undefined) {
      fail(new Error("no RPC client for this chain"));
      return job;
    }
    // On a chain indexed for discovered wallets only, the index records the wallet's touches from the
    // next block planned; its log scan reads up to that block, so it waits for the mark.
    const marked = deps.wallets?.add(chain, [wallet]) ?? Promise.resolve();
    marked.catch(() => undefined);
    const sweepNeeded = resweep || record.swept_block === undefined;
    if (!sweepNeeded) {
      job.tokensReady = true;
      // A wallet this process finds swept and scanned to the end by an earlier one (its record,
      // after a restart) is complete at once: its first answer has nothing to wait for or warn of.
      if (logScans.finished(chain, wallet, job)) {
        job.state = "complete";
        return job;
      }
      job.state = "scanning";
    }
    // A first sweep is a request's: on nodes that are all failing it fails at once (the request
    // then names the chain in its errors) rather than wait for them as background work does.
    const firstRpc = record.swept_block === undefined ? rpc.forRequests(DEFAULT_CALL_BUDGET_MS) : rpc;
    let answerable = () => {};
    const tokens = new Promise<void>((resolve) => {
      answerable = () => {
        job.tokensReady = true;
        resolve();
      };
    });
    let stored = () => {};
    const tokensStored = new Promise<void>((resolve) => {
      stored = resolve;
    });
    job.swept = !sweepNeeded
      ? Promise.resolve()
      : record.swept_block === undefined && sweepSlots.waiting() >= deps.settings.sweepQueueMax
        ? Promise.reject(new SweepLineFull(deps.settings.sweepQueueMax))
        : sweepSlots(() => sweep(chain, wallet, job, firstRpc, { answerable, stored }));
    job.tokensSwept = Promise.race([tokens, job.swept]);
    // A failed sweep is handled below (fail); a request that waits for its tokens sees it as a state.
    job.tokensSwept.catch(() => undefined);
    // The log scan is background work: a first answer is the sweep's (docs/real-chains.md). It
    // needs nothing of the position finders, so it starts once the tokens are stored (what it finds
    // is written only where the index has no record yet) and the requests answering about the
    // wallet have their answers, beside the finders if they still run.
    const scanned = Promise.race([tokensStored, job.swept]).then(async () => {
      await marked;
      await holds.free(scanKey(wallet));
      await logScans.add(chain, wallet, job, byRequest);
    });
    // Handled below, once the sweep is done: a scan that failed meanwhile fails the job then, unless
    // the sweep or the finders failed first (that failure is the job's, and waits for retryDue).
    scanned.catch(() => undefined);
    job.swept
      .then(async () => {
        job.state = "scanning";
        await scanned;
        job.state = "complete";
        forgetAsks(jobKey(chain.chain_id, wallet), job);
        completed(chain.chain_id, jobKey(chain.chain_id, wallet), job);
      })
      .catch(fail);
    return job;
  };

  // A wallet's first answer waits for this read.
  const load = async (chainId: number, wallet: string): Promise<DiscoveryRecord> =>
    ((await readNow(deps.db, [discoveryRecordKey(chainId, wallet)]))[0] as DiscoveryRecord | undefined) ?? {};

  const starting = new Map<string, Promise<Job>>();

  /**
   * The wallet's job on the chain, started (or resumed from its record) if there is none, or tried
   * again after a failure. A wallet waiting in the webhooks' queue leaves it, since this starts it;
   * if this sweep fails, it goes back with its webhooks' claims, so the queue still tries it once.
   */
  const start = (chain: ChainConfig, wallet: string, byRequest: boolean): Promise<Job | undefined> => {
    if (!needed(chain)) return Promise.resolve(undefined);
    watchRegistry(chain.chain_id);
    const key = jobKey(chain.chain_id, wallet);
    const queued = prefetchQueue.drop(key);
    const started = startJob(chain, wallet, key, byRequest && queued === undefined);
    if (queued !== undefined)
      started
        .then((job) => job?.swept)
        .then(
          () => prefetchQueue.settled(queued),
          () => prefetchQueue.restore(queued),
        );
    return started;
  };

  /**
   * A job whose only failure is its log scan turned away by a full line: a webhook's ask reads it at
   * once. One whose sweep or finders failed waits for `retryDue` like any failure, whatever became
   * of its scan, or a webhook announcing the wallet would run its failing finders again at once.
   */
  const turnedAwayOnly = (job: Job): boolean => job.state === "failed" && job.failedForScanLine === true;

  /**
   * A failed job is tried again: at once for a wallet whose tokens were never swept (its chain
   * cannot be answered); after FINDERS_RETRY_MS for one whose first sweep read its tokens but
   * whose position finders failed (it cannot be answered either, yet each try sweeps the whole
   * universe again: a client polling it would cost one sweep a request); after `retryMs` otherwise.
   */
  const retryDue = (job: Job): boolean => {
    if (job.state !== "failed") return false;
    const since = deps.now() - (job.failedAt ?? 0);
    if (job.record.swept_block !== undefined) return since >= deps.settings.retryMs;
    return !job.tokensReady || since >= Math.min(deps.settings.retryMs, FINDERS_RETRY_MS);
  };

  /**
   * Whether a swept wallet is swept again on its next request: its sweep is older than `resweepMs`
   * or than chain events the index missed, or ran before its chain's registry backfill was done
   * and that is done now (the pools and markets it read widen the universe). Read from the record,
   * so a wallet loaded after a restart, or let go and asked again, is judged as one held in memory.
   */
  const sweepStale = (chainId: number, record: DiscoveryRecord): boolean =>
    record.swept_at !== undefined &&
    (deps.now() - record.swept_at >= deps.settings.resweepMs ||
      record.swept_at < trimmedAtOf(chainId) ||
      (record.registry_pending === true && deps.registry?.progress(chainId)?.done === true));

  const startJob = (
    chain: ChainConfig,
    wallet: string,
    key: string,
    byRequest: boolean,
  ): Promise<Job | undefined> => {
    const job = jobs.get(key);
    if (job !== undefined) {
      // A webhook's ask starts a scan a full line turned away at once: its line is not bounded.
      const retry = retryDue(job) || (!byRequest && turnedAwayOnly(job));
      // A failed resweep tried again is still due: without it the retry would find the old sweep
      // and scan done and call the wallet complete, its answer without the warning.
      const stale = (job.state === "complete" || retry) && sweepStale(chain.chain_id, job.record);
      const widened = job.state === "complete" && logScans.widened(chain, wallet, job);
      if (!retry && !stale && !widened) {
        if (job.state === "complete" || job.state === "failed") keepSettled(key);
        return Promise.resolve(job);
      }
      const next = run(chain, wallet, job.record, stale, byRequest);
      setJob(chain.chain_id, key, next);
      return Promise.resolve(next);
    }
    let pending = starting.get(key);
    if (pending === undefined) {
      pending = load(chain.chain_id, wallet).then((record) => {
        const next = run(chain, wallet, record, sweepStale(chain.chain_id, record), byRequest);
        setJob(chain.chain_id, key, next);
        return next;
      });
      starting.set(key, pending);
      pending.finally(() => starting.delete(key)).catch(() => undefined);
    }
    return pending;
  };

  /** A webhook's ask of a running job, kept in case its log scan is turned away (see `fail`). */
  const noteAsk = (key: string, job: Job | undefined, by: string) => {
    if (job?.state !== "sweeping" && job?.state !== "scanning") return;
    let entry = asks.get(key);
    // A job is replaced only once it is complete or failed, and then its asks are forgotten: an
    // entry of another job is not expected, and would be stale (`fail` makes only the current
    // job's asks again).
    if (entry?.job !== job) {
      entry = { job, by: new Set() };
      asks.set(key, entry);
    }
    entry.by.add(by);
  };

  const forgetAsks = (key: string, job: Job) => {
    if (asks.get(key)?.job === job) asks.delete(key);
  };

  /** The webhook `by` stopped watching the wallets (on `chainIds`, or every chain): its asks go. */
  const withdrawAsks = (by: string, wallets: ReadonlyArray<string>, chainIds?: ReadonlyArray<number>) => {
    if (asks.size === 0) return;
    const named = new Set(wallets.map((wallet) => wallet.toLowerCase()));
    for (const [key, entry] of asks) {
      const [chainId, wallet] = key.split("|");
      if (!named.has(wallet!) || (chainIds !== undefined && !chainIds.includes(Number(chainId)))) continue;
      entry.by.delete(by);
      if (entry.by.size === 0) asks.delete(key);
    }
  };

  const prefetchQueue = makePrefetchQueue({
    discover: async (chain, wallet) => {
      const job = await start(chain, wallet, false);
      if (job === undefined || job.state === "complete") return false;
      await job.swept;
      return true;
    },
    // A job that failed and is due to be tried again is not known: a webhook announcing the wallet
    // again queues it. Nor is one whose scan a full line turned away: the webhook's turn reads it.
    // One still running is known, and remembers the ask: its scan may yet be turned away (fail).
    known: (key, by) => {
      const pending = starting.get(key);
      if (pending !== undefined) {
        pending.then(
          (job) => noteAsk(key, job, by),
          () => undefined,
        );
        return true;
      }
      const job = jobs.get(key);
      if (job === undefined || retryDue(job) || turnedAwayOnly(job)) return false;
      noteAsk(key, job, by);
      return true;
    },
    key: jobKey,
    max: deps.settings.prefetchMax,
    perSecond: deps.settings.prefetchPerSecond,
  });

  /**
   * Where the job stands for a request that needs `need`: once the tokens are written, a balances
   * request sees the sweep as done even while the finders run, or if they failed (they are tried
   * again on a later request; the tokens it shows are right).
   */
  const stateFor = (job: Job, need: DiscoveryNeed): DiscoveryProgress["state"] => {
    const tokensOnly = need === "tokens" && job.tokensReady;
    if (job.state === "sweeping") return tokensOnly ? "scanning" : "sweeping";
    if (job.state === "failed")
      return job.record.swept_block === undefined && !tokensOnly ? "failed" : "scan_failed";
    return job.state;
  };

  /**
   * The state a request is told: a background resweep, running or failed (a failed one is logged
   * and tried again after `retryMs`), shows what the wallet's scan shows, complete once it is read
   * to its end; operators' counts show it as it is (`stateFor`).
   */
  const toldState = (
    chain: ChainConfig,
    wallet: string,
    job: Job,
    need: DiscoveryNeed,
  ): DiscoveryProgress["state"] =>
    job.background === true && job.state !== "complete"
      ? logScans.finished(chain, wallet, job)
        ? "complete"
        : job.state === "failed"
          ? "scan_failed"
          : "scanning"
      : stateFor(job, need);

  const progressOf = (
    chain: ChainConfig,
    wallet: string,
    job: Job | undefined,
    need: DiscoveryNeed,
  ): DiscoveryProgress => {
    if (!needed(chain)) return { state: "not_needed" };
    if (job === undefined) return { state: "not_started" };
    const scan = job.record.scan;
    const backfill = deps.registry?.progress(chain.chain_id);
    // A backfill with no range yet (just started: where the index starts, and what it stored
    // before a restart, are not read yet) has nothing to show.
    const registry =
      backfill === undefined || backfill.done || backfill.to < backfill.from
        ? undefined
        : { from: backfill.from, to: backfill.to, next: backfill.next };
    const historyIndexed =
      deps.indexedFrom(chain.chain_id) === 0 &&
      !gapTo.has(chain.chain_id) &&
      deps.wallets?.partial(chain) !== true;
    return {
      ...(registry === undefined ? {} : { registry }),
      ...(historyIndexed ? { history_indexed: true as const } : {}),
      state: toldState(chain, wallet, job, need),
      ...(job.record.swept_block === undefined ? {} : { swept_block: job.record.swept_block }),
      ...(scan === undefined ? {} : { scan }),
      ...(logScans.isQueued(chain.chain_id, wallet) ? { scan_queued: true } : {}),
      ...(job.error === undefined ? {} : { error: job.error }),
      ...(job.truncated.length === 0 && job.record.scan_truncated === undefined
        ? {}
        : { truncated: [...job.truncated, ...(job.record.scan_truncated ?? [])] }),
    };
  };

  return {
    /**
     * Starts (or resumes) the wallet's discovery on the chain and waits up to `waitMs` for its
     * sweep; answers how far it got. Never fails: a failed discovery is a state, not an error.
     */
    settle: async (
      chain: ChainConfig,
      wallet: string,
      waitMs: number,
      need: DiscoveryNeed = "positions",
    ): Promise<DiscoveryProgress> => {
      const job = await start(chain, wallet, true).catch(() => undefined);
      if (job !== undefined && job.state === "sweeping" && job.background !== true && waitMs > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          (need === "tokens" ? job.tokensSwept : job.swept).catch(() => undefined),
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, waitMs);
          }),
        ]);
        clearTimeout(timer);
      }
      return progressOf(chain, wallet, job, need);
    },
    /**
     * Marks a request answering `need` about the wallet until the returned release is called:
     * the discovery work that answer does not need waits meanwhile (at most `holdMaxMs`).
     */
    hold: (wallet: string, need: DiscoveryNeed): (() => void) =>
      holds.take(need === "tokens" ? [findersKey(wallet), scanKey(wallet)] : [scanKey(wallet)]),
    /**
     * Queues the wallets' discovery on the chains in the background (the webhook `by` started
     * watching them); answers how many were queued. Chains whose index holds the whole history,
     * wallets already discovered or queued, and wallets past the queue's bound are skipped.
     */
    prefetch: (chains: ReadonlyArray<ChainConfig>, wallets: ReadonlyArray<string>, by?: string): number => {
      // Recorded from now on, not once each waits its turn in the queue (5 a second): the webhook's
      // alerts read the index. A mark that fails to be stored is made again when the wallet's job starts.
      const lower = deps.wallets === undefined ? [] : wallets.map((wallet) => wallet.toLowerCase());
      for (const chain of chains)
        deps.wallets
          ?.add(chain, lower)
          .catch((error: unknown) =>
            deps.warn(
              `the index could not record the touches of ${wallets.length} watched wallets on ${chain.name} (${chain.chain_id}): ${error instanceof Error ? error.message : String(error)}`,
              chain.chain_id,
            ),
          );
      return prefetchQueue.add(
        chains.filter((chain) => needed(chain)),
        wallets,
        by,
      );
    },
    /**
     * The webhook `by` stopped watching the wallets, on the chains `chainIds` (all when not given):
     * those still waiting there that no other webhook queued leave the queue (a discovery already
     * started goes on, but its scan is no longer asked again for this webhook should a full line
     * turn it away). Answers how many left.
     */
    unprefetch: (by: string, wallets: ReadonlyArray<string>, chainIds?: ReadonlyArray<number>): number => {
      withdrawAsks(by, wallets, chainIds);
      return prefetchQueue.withdraw(by, wallets, chainIds);
    },
    /**
     * The index missed chain events (CHAIN_EVENTS dropped them before they were applied, Indexer's
     * `onTrimmed`) at `at`: every wallet swept before then is swept again on its next request, since
     * what the missed blocks did to it is not in the index. With `chainId`, only that chain's
     * blocks are missing (ingest never published them), and only its wallets are swept again.
     */
    indexTrimmed: (at: number, chainId?: number): void => {
      if (chainId === undefined) trimmedAt = Math.max(trimmedAt, at);
      else chainTrimmedAt.set(chainId, Math.max(chainTrimmedAt.get(chainId) ?? 0, at));
    },
    /**
     * The index jumped over the chain's blocks up to `to` (Indexer's `onGap`, or its record read at
     * start): wallets' log scans read up to there, since what those blocks did is not in the index.
     * A wallet scanned before is scanned again once its resweep (indexTrimmed) is done. `undefined`:
     * the blocks were applied since (the gap is filled), and scans read only what precedes the index.
     */
    indexGap: (chainId: number, to: number | undefined): void => {
      if (to === undefined) gapTo.delete(chainId);
      else gapTo.set(chainId, to);
    },
    /** Wallets queued by `prefetch` and not yet started. */
    prefetchQueued: (): number => prefetchQueue.size(),
    /** Wallets whose log scans wait for a batch to take them. */
    scansQueued: (): number => logScans.waiting(),
    /** How far the wallet's discovery on the chain is, without starting anything. */
    progress: (chain: ChainConfig, wallet: string, need: DiscoveryNeed = "positions"): DiscoveryProgress =>
      progressOf(chain, wallet, jobs.get(jobKey(chain.chain_id, wallet)), need),
    /** The chain's registry backfill, as far as it has got. */
    registryProgress: (chainId: number) => deps.registry?.progress(chainId),
    /**
     * Changes each time discovery writes something for the wallet on the chain: part of read-cache
     * keys. While a sweep's tokens are being written it is the last write's plus a half, so reads
     * made then are cached under a key of their own, never served once LevelDB holds them.
     */
    version: (chainId: number, wallet: string): number => {
      const key = jobKey(chainId, wallet);
      return versionOf(key) + (pendingSweeps.has(key) ? 0.5 : 0);
    },
    /**
     * The clock's reading at discovery's last write for the wallet on the chain, 0 when this process
     * keeps none (never written, or let go). For readers that keep something costly of a wallet
     * until discovery writes more of it (the alerts' footprints): unlike `version`, it does not move
     * when other wallets are let go, but it returns to 0 when this one is, so a reader must compare
     * it at least once between a write and the wallet being let go, which takes `keptSettled` other
     * wallets settling.
     */
    lastWrite: (chainId: number, wallet: string): number => versions.get(jobKey(chainId, wallet)) ?? 0,
    /**
     * Advances once every `keptSettled` times a wallet settles, or a settled one is asked about or
     * written for. A wallet is let go only after that many others since its last write, so a reader
     * of `lastWrite` that finds this unchanged since its last comparison cannot have missed a write
     * hidden by a let-go (lastWrite back at 0); one that finds it moved must compare everything again.
     */
    settledGeneration: (): number => Math.floor(settledTouches / deps.settings.keptSettled),
    /** The tokens a sweep found for the wallet on the chain that LevelDB is still writing. */
    tokensPending: (chainId: number, wallet: string): ReadonlyArray<string> =>
      pendingSweeps.get(jobKey(chainId, wallet)) ?? [],
    /**
     * The fungible tokens discovery wrote for the wallet on the chain since it stood at `version`,
     * when those are known exactly: none (nothing written since), or the sweep's finds when its
     * write was the only one. Undefined otherwise: a read of the wallet's tokens from before is
     * then stale. Lets a request read the wallet's tokens while the sweep runs (Balances).
     */
    tokensSince: (chainId: number, wallet: string, version: number): ReadonlyArray<string> | undefined => {
      const key = jobKey(chainId, wallet);
      const now = versionOf(key);
      // A version taken while a sweep's write was pending names the writes taken before it.
      const taken = Math.floor(version);
      if (now === taken) return [];
      const sweepWrite = jobs.get(key)?.sweepWrite;
      return sweepWrite !== undefined && sweepWrite.version === now && sweepWrite.previous === taken
        ? sweepWrite.tokens
        : undefined;
    },
    /**
     * Jobs of this process by chain and state, for /healthz, metrics and the TUI; `not_started`
     * counts the wallets a webhook queued (`prefetch`) that wait for their turn, `scan_queued` the
     * jobs whose log scan waits for a batch (not counted in `scanning`).
     */
    stats: (): ReadonlyMap<number, DiscoveryStateCounts> => {
      const out = new Map<number, Record<keyof DiscoveryStateCounts, number>>();
      const countsOf = (chainId: number) => {
        let counts = out.get(chainId);
        if (counts === undefined) {
          counts = {
            not_needed: 0,
            not_started: 0,
            sweeping: 0,
            scanning: 0,
            complete: 0,
            failed: 0,
            scan_failed: 0,
            scan_queued: 0,
          };
          out.set(chainId, counts);
        }
        return counts;
      };
      for (const key of unfinished) {
        const job = jobs.get(key)!;
        const split = key.indexOf("|");
        const chainId = Number(key.slice(0, split));
        const state = stateFor(job, "positions");
        const waits = state === "scanning" && logScans.isQueued(chainId, key.slice(split + 1));
        countsOf(chainId)[waits ? "scan_queued" : state]++;
      }
      for (const [chainId, complete] of completeByChain)
        if (complete > 0) countsOf(chainId).complete += complete;
      for (const [chainId, queued] of prefetchQueue.byChain()) countsOf(chainId).not_started += queued;
      return out;
    },
  };
};

export type WalletDiscovery = ReturnType<typeof makeWalletDiscovery>;
