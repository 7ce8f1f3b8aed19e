import type { ChainConfig } from "../chains/ChainsConfig.js";
import type { BlockRef } from "../chains/readEachChain.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import type { Db, Operation } from "../storage/Level.js";
import type { DiscoveryRecord } from "./DiscoveryRecord.js";
import { heldTokenOps } from "./heldTokenOps.js";
import { makeScanBatches, type SettleScan } from "./scanBatches.js";
import type { DiscoverySettings, FinderContext, Finders } from "./WalletDiscovery.js";
import {
  type FilterWidth,
  filterWidth,
  MAX_STRETCH_NFT_IDS,
  MAX_STRETCH_TOKENS,
  type ScannedStretch,
  scanWalletsStretch,
} from "./walletLogScan.js";

/** What a log scan reads and writes of a wallet's discovery job: its record (where the scan stands). */
export interface ScanJob {
  record: DiscoveryRecord;
}

/** One wallet's log scan waiting for, or running in, a batch. */
interface ScanEntry {
  readonly chain: ChainConfig;
  readonly wallet: string;
  readonly job: ScanJob;
}

export interface WalletLogScansDeps {
  readonly db: Db;
  /** The chain's RPC handle for background work. */
  readonly rpc: (chainId: number) => ChainRpc | undefined;
  /** The block requests read at: the NFTs a scan finds are resolved there. */
  readonly checkpoint: (chainId: number) => Promise<BlockRef | undefined>;
  /**
   * First block from which the index holds the wallet's token touches on the chain: where the index
   * starts (0 when it holds the whole history), or later on a chain indexed for discovered wallets
   * only (IndexedWallets.ts); undefined while that is not known.
   */
  readonly recordedFrom: (chain: ChainConfig, wallet: string) => number | undefined;
  /** The last block of the chain's blocks the index jumped over (indexGapKey), if any. */
  readonly gapTo: (chainId: number) => number | undefined;
  readonly finders: Pick<Finders, "nftContracts" | "nftIds">;
  readonly settings: Pick<DiscoverySettings, "scans" | "scanBatch" | "scanStretch" | "scanQueueMax">;
  /** Writes what a stretch found for the wallet into the index views (the discovery's versioned write). */
  readonly write: (chainId: number, wallet: string, ops: ReadonlyArray<Operation>) => Promise<unknown>;
  /** Saves the job's record: where its scan stands, so a restart resumes there. */
  readonly saveRecord: (chainId: number, wallet: string, job: ScanJob) => Promise<void>;
}

/** How long a scan waits for the first probe of its chain's nodes (made as the service starts). */
const PROBE_WAIT_MS = 30_000;

const NOT_PROBED = "where the nodes' logs begin is not known yet (no probe has answered)";

/** What a wallet's answers say of a stretch it moved more tokens in than a stretch keeps. */
const cappedNote = (from: number, to: number) =>
  `more than ${MAX_STRETCH_TOKENS} tokens (or ${MAX_STRETCH_NFT_IDS} position NFTs of one manager) moved in blocks ${from} to ${to}; only the first found there are listed`;

/** Chains whose wait for their probes ran out once: their scans no longer wait for them. */
const waitedOut = new WeakSet<ChainRpc>();

/**
 * Resolves once the probes of the chain's nodes have said where their logs begin: every node's, or
 * at least one once `PROBE_WAIT_MS` went by. Reading down to block 0 before any answered would take
 * a node's empty answers for pruned blocks as history read; starting on the first to answer (a
 * full node's, quicker than an archive's) would read only that node's window. The first scans
 * wait for the probes made as the service starts; once a wait ran out, scans go on what is known,
 * or fail at once (and are tried again later) while nothing is, instead of each holding a scan
 * slot for the whole wait. A node probed later that keeps older logs widens finished scans
 * (`widened`).
 */
const probed = async (rpc: ChainRpc): Promise<void> => {
  for (let waited = 0; !rpc.capabilities().complete; waited += 100) {
    if (waitedOut.has(rpc) || waited >= PROBE_WAIT_MS) {
      waitedOut.add(rpc);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (rpc.capabilities().logsFrom === undefined) throw new Error(NOT_PROBED);
};

/**
 * The wallets' transfer-log scans over the history the index lacks and the nodes keep
 * (docs/real-chains.md, step 4): newest first, in stretches of `scanStretch` blocks, each wallet's
 * progress saved after each stretch. Scans that wait for one of the `scans` slots are read
 * together when it frees, up to `scanBatch` wallets of a chain at once (scanBatches.ts), their
 * filters naming every wallet of the batch (walletTransferFilters).
 */
export const makeWalletLogScans = (deps: WalletLogScansDeps) => {
  const queueKey = (chainId: number, wallet: string) => `${chainId}|${wallet}`;

  /**
   * The history the index lacks of the wallet and the node keeps: where its log scan runs. Up to the
   * block before the index holds its touches, or up to the last block the index jumped over (blocks
   * ingest never published, or the stream dropped), which the scan then reads down from: the blocks
   * between that the index holds are read again, which costs time, not correctness.
   */
  const scanRange = (
    chain: ChainConfig,
    wallet: string,
    rpc: ChainRpc,
  ): { from: number; to: number } | undefined => {
    const recordedFrom = deps.recordedFrom(chain, wallet);
    // Without it the range is unknown: the scan fails and is tried again on a later request.
    if (recordedFrom === undefined) throw new Error("where this chain's index starts is not known yet");
    const to = Math.max(recordedFrom - 1, deps.gapTo(chain.chain_id) ?? -1);
    if (to < 0) return undefined;
    // Unknown until a probe of the nodes answered (scans wait for one: `probed`).
    const from = rpc.capabilities().logsFrom;
    if (from === undefined) throw new Error(NOT_PROBED);
    return from <= to ? { from, to } : undefined;
  };

  /** Whether the job's scan has read all the history there is to read (none when that is unknown). */
  const readToEnd = (chain: ChainConfig, wallet: string, job: ScanJob): boolean => {
    const rpc = deps.rpc(chain.chain_id);
    if (rpc === undefined) return false;
    try {
      const range = scanRange(chain, wallet, rpc);
      const scan = job.record.scan;
      // Read down to where the nodes' logs begin now: on a node keeping a window, that start moves up
      // with every probe, and a scan read to an older, lower start has read what is kept and more.
      // One read down from a higher block (a gap the index has filled since) covers the range too.
      return range === undefined || (scan !== undefined && scan.to >= range.to && scan.below <= range.from);
    } catch {
      return false;
    }
  };

  /**
   * Reads the transfer logs of a batch of wallets on one chain down from where each scan stands,
   * saving each wallet's progress after each stretch. All of them go together once the read reaches
   * where each stopped (at once when the batch is a webhook's new addresses); a wallet whose
   * findings fail to be written fails alone, a refused read fails the wallets it was for.
   */
  const scanWallets = async (
    chain: ChainConfig,
    rpc: ChainRpc,
    entries: ReadonlyArray<ScanEntry>,
    settle: SettleScan<ScanEntry>,
  ) => {
    await probed(rpc);
    // Each wallet's own range: on a chain indexed for discovered wallets only, where the index holds
    // a wallet's touches from differs by wallet. Where the nodes' logs begin is the same for all.
    const ranges = new Map<ScanEntry, { from: number; to: number }>();
    for (const entry of entries) {
      try {
        const range = scanRange(chain, entry.wallet, rpc);
        if (range === undefined) settle(entry);
        else ranges.set(entry, range);
      } catch (error) {
        settle(entry, error);
      }
    }
    if (ranges.size === 0) return;
    const ranged = [...ranges.values()];
    const lowest = Math.min(...ranged.map((range) => range.from));
    const highest = Math.max(...ranged.map((range) => range.to));
    const byStart = new Map<number, Array<ScanEntry>>();
    for (const [entry, range] of ranges) {
      const previous = entry.job.record.scan;
      // A scan down from the same block, or a higher one (a gap the index has filled since), resumes
      // where it got, whichever start the nodes' logs had then (a window's moves up; an archive
      // endpoint added moves it down, and the scan reads on).
      const below =
        previous !== undefined && previous.to >= range.to
          ? Math.min(previous.below, range.to + 1)
          : range.to + 1;
      entry.job.record = { ...entry.job.record, scan: { ...range, below } };
      byStart.set(below, [...(byStart.get(below) ?? []), entry]);
    }
    const block = await deps.checkpoint(chain.chain_id);
    const context: FinderContext = { chain, block: block ?? { number: highest }, rpc, db: deps.db };
    const nftContracts = deps.finders.nftContracts(chain);
    // Resume points, highest first: the wallets that stopped highest are read down to the next
    // point, where its wallets join them, so each block is asked once for the whole batch however
    // far each wallet had got (a restart between two wallets' saves, a retry of failed ones).
    const starts = [...byStart.keys()].sort((a, b) => b - a);
    let joined = 0;
    let active: Array<ScanEntry> = [];
    let below = starts[0]!;
    try {
      for (;;) {
        while (joined < starts.length && starts[joined]! >= below)
          active.push(...byStart.get(starts[joined++]!)!);
        if (below <= lowest) break;
        if (active.length === 0) {
          if (joined === starts.length) break;
          below = starts[joined]!;
          continue;
        }
        const joinAt = joined < starts.length ? starts[joined]! : lowest;
        const from = Math.max(lowest, joinAt, below - deps.settings.scanStretch);
        const wallets = active.map((entry) => entry.wallet);
        const { found, failed: unread } = await rpc.run(
          scanWalletsStretch(rpc, wallets, from, below - 1, nftContracts, widthOf(chain.chain_id)),
        );
        const failed = new Set<ScanEntry>();
        for (const entry of active) {
          if (unread.has(entry.wallet)) {
            failed.add(entry);
            settle(entry, unread.get(entry.wallet) ?? new Error("the scan's read failed"));
            continue;
          }
          try {
            const stretch = found.get(entry.wallet);
            if (stretch !== undefined) await writeStretch(chain, entry.wallet, context, stretch, rpc);
            const record = entry.job.record;
            entry.job.record = {
              ...record,
              scan: { ...ranges.get(entry)!, below: from },
              // A stretch read again (its scan widened) says so once.
              ...(stretch?.capped === true
                ? {
                    scan_truncated: [
                      ...new Set([...(record.scan_truncated ?? []), cappedNote(from, below - 1)]),
                    ],
                  }
                : {}),
            };
            await deps.saveRecord(chain.chain_id, entry.wallet, entry.job);
          } catch (error) {
            failed.add(entry);
            settle(entry, error ?? new Error("writing what the scan found failed"));
          }
        }
        active = active.filter((entry) => !failed.has(entry));
        below = from;
      }
      for (const entry of active) settle(entry);
    } catch (error) {
      // Wallets not read yet fail with it too: none is settled as read.
      const waiting = starts.slice(joined).flatMap((start) => byStart.get(start)!);
      for (const entry of [...active, ...waiting])
        settle(entry, error ?? new Error("the scan's read failed"));
    }
  };

  /** Writes what one stretch of a wallet's history showed: its tokens, and positions of the NFTs it received. */
  const writeStretch = async (
    chain: ChainConfig,
    wallet: string,
    context: FinderContext,
    stretch: ScannedStretch,
    rpc: ChainRpc,
  ) => {
    if (stretch.tokens.length === 0 && stretch.nftIds.size === 0) return;
    const tokens = await heldTokenOps(deps.db, rpc, chain.chain_id, wallet, stretch.tokens);
    const nfts =
      stretch.nftIds.size === 0 ? { ops: [] } : await deps.finders.nftIds(context, wallet, stretch.nftIds);
    await deps.write(chain.chain_id, wallet, [...tokens, ...nfts.ops]);
  };

  /** Each chain's filter width, as its nodes took it (scanWalletsStretch). */
  const widths = new Map<number, FilterWidth>();
  const widthOf = (chainId: number): FilterWidth => {
    let width = widths.get(chainId);
    if (width === undefined) {
      width = filterWidth(deps.settings.scanBatch);
      widths.set(chainId, width);
    }
    return width;
  };

  const scans = makeScanBatches<ScanEntry>({
    slots: deps.settings.scans,
    batchMax: deps.settings.scanBatch,
    boundedMax: deps.settings.scanQueueMax,
    keyOf: (entry) => queueKey(entry.chain.chain_id, entry.wallet),
    scan: (chainId, entries, settle) => {
      const chain = entries[0]!.chain;
      const rpc = deps.rpc(chainId);
      if (rpc === undefined) throw new Error("no RPC client for this chain");
      return scanWallets(chain, rpc, entries, settle);
    },
  });

  return {
    /**
     * Scans the wallet's transfer history on the chain; settles once it is read (or failed). A
     * scan already read to its end (a resweep's) settles at once: it does not wait in line, where
     * its answers would say its history waits for its turn. `bounded`: a request's own scan, which
     * fails with ScanLineFull when `scanQueueMax` of those wait already.
     */
    add: (chain: ChainConfig, wallet: string, job: ScanJob, bounded = false): Promise<void> =>
      readToEnd(chain, wallet, job)
        ? Promise.resolve()
        : scans.add(chain.chain_id, { chain, wallet, job }, bounded),
    /** Whether the job's scan has read all the history there is to read (false when that is not known yet). */
    finished: (chain: ChainConfig, wallet: string, job: ScanJob): boolean => readToEnd(chain, wallet, job),
    /**
     * Whether there is more to read than the job's finished scan read: the nodes now keep older
     * logs than it read down to (a node whose probe answered after the scan, an archive added), or
     * the index has since jumped over blocks above where it began (indexGap).
     */
    widened: (chain: ChainConfig, wallet: string, job: ScanJob): boolean => {
      const rpc = deps.rpc(chain.chain_id);
      const scan = job.record.scan;
      if (rpc === undefined) return false;
      try {
        const range = scanRange(chain, wallet, rpc);
        // A wallet with no scan had nothing to read when it was done (the nodes then kept no logs
        // below the index's start): there is now.
        return range !== undefined && (scan === undefined || scan.to < range.to || scan.below > range.from);
      } catch {
        return false;
      }
    },
    /** Whether the wallet's scan on the chain waits for a batch to take it. */
    isQueued: (chainId: number, wallet: string): boolean =>
      scans.isWaiting(chainId, queueKey(chainId, wallet)),
    /** Wallets whose scans wait for a batch to take them. */
    waiting: (): number => scans.waiting(),
  };
};
