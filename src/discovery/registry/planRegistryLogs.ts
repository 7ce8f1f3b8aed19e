import type { ChainConfig } from "../../chains/ChainsConfig.js";
import type { RpcLog } from "../../chains/rpc/RpcTypes.js";
import { type DecodedEvent, type DecodedEventKind, decodeLogs, poolsCreated } from "../../decoding/index.js";
import type { ChainLog } from "../../domain/ChainBlock.js";
import type { IndexedPool, TokenMetadata } from "../../indexer/IndexRecords.js";
import { PendingWrites, type SyncStore } from "../../indexer/PendingWrites.js";
import { planLendingViews, type ReadUnderlying } from "../../indexer/planLendingViews.js";
import { poolViewWrites, registryByAddress, registryPool } from "../../indexer/planPoolViews.js";
import { planYieldSplitViews } from "../../indexer/planYieldSplitViews.js";
import type { AssetOf } from "../../indexer/readUnderlying.js";
import { normalizeLog } from "../../ingest/normalizeBlock.js";
import type { Operation } from "../../storage/Level.js";
import { poolTokenMetadataOps } from "./poolTokenMetadata.js";

/** What planning a stretch reads from the chain: assets of cTokens and SYs, metadata of pool tokens. */
export interface RegistryReads {
  readonly underlying: ReadUnderlying;
  readonly metadata: (tokens: ReadonlyArray<string>) => Promise<ReadonlyArray<TokenMetadata>>;
}

/** The registry events (registrySources.ts REGISTRY_TOPICS, decoded). */
const REGISTRY_KINDS: ReadonlySet<DecodedEventKind> = new Set([
  "v2.pairCreated",
  "v3.poolCreated",
  "v4.initialize",
  "algebra.poolCreated",
  "aave.reserveInitialized",
  "ctoken.marketListed",
  "pendle.createYieldContract",
  "pendle.createNewMarket",
]);

/** Contracts per asset read (one `underlying()` or `assetInfo()` each). */
const ASSETS_PER_READ = 500;

/** The contracts whose asset the planners will ask for: listed cTokens and new SYs. */
const assetsAsked = (events: ReadonlyArray<DecodedEvent>): ReadonlyArray<AssetOf> =>
  events.flatMap((event): Array<AssetOf> => {
    if (event.kind === "ctoken.marketListed") return [{ contract: event.cToken, kind: "ctoken" }];
    if (event.kind === "pendle.createYieldContract") return [{ contract: event.sy, kind: "sy" }];
    return [];
  });

const assetKey = (asset: AssetOf) => `${asset.kind}|${asset.contract}`;

/**
 * Reads every asset a stretch's planners will ask for up front, in batches, and answers the
 * planners from that: one read per stretch instead of one per block with a listing in it.
 */
const prefetchedAssets = async (
  events: ReadonlyArray<DecodedEvent>,
  read: ReadUnderlying,
): Promise<ReadUnderlying> => {
  const unique = new Map(assetsAsked(events).map((asset) => [assetKey(asset), asset]));
  const wanted = [...unique.values()];
  const known = new Map<string, string | null>();
  for (let i = 0; i < wanted.length; i += ASSETS_PER_READ) {
    const batch = wanted.slice(i, i + ASSETS_PER_READ);
    const answers = await read(batch);
    batch.forEach((asset, j) => {
      known.set(assetKey(asset), answers[j] ?? null);
    });
  }
  return async (contracts) => {
    const missing = contracts.filter((asset) => !known.has(assetKey(asset)));
    if (missing.length > 0) {
      const answers = await read(missing);
      missing.forEach((asset, j) => {
        known.set(assetKey(asset), answers[j] ?? null);
      });
    }
    return contracts.map((asset) => known.get(assetKey(asset)) ?? null);
  };
};

/** Logs by block, in block order, each block's in log order. */
const byBlock = (logs: ReadonlyArray<RpcLog>): ReadonlyArray<readonly [number, ReadonlyArray<ChainLog>]> => {
  const blocks = new Map<number, Array<ChainLog>>();
  for (const log of logs) {
    if (log.removed === true) continue;
    const number = Number.parseInt(log.blockNumber, 16);
    let list = blocks.get(number);
    if (list === undefined) {
      list = [];
      blocks.set(number, list);
    }
    list.push(normalizeLog(log));
  }
  return [...blocks.entries()]
    .sort(([a], [b]) => a - b)
    .map(([number, list]) => [number, list.sort((a, b) => a.log_index - b.log_index)] as const);
};

/**
 * The writes that put a stretch's registry events (from eth_getLogs, any number of blocks) into
 * the views, exactly as the indexer writes them for the same events in the blocks it applies: pool
 * records through `registryPool`, lending tokens through `planLendingViews`, yield-splitting
 * tokens through `planYieldSplitViews`, block after block, each seeing what the blocks before it
 * planned (the first market of a PT is the earliest one, as in a full-history index). Then the
 * metadata of the pools' tokens the index lacks. The pools found are returned too.
 */
export const planRegistryLogs = async (
  db: SyncStore,
  chain: ChainConfig,
  logs: ReadonlyArray<RpcLog>,
  reads: RegistryReads,
): Promise<{ readonly ops: ReadonlyArray<Operation>; readonly pools: ReadonlyArray<IndexedPool> }> => {
  const pending = new PendingWrites(db);
  const registry = registryByAddress(chain);
  const blocks = byBlock(logs).map(
    ([number, blockLogs]) =>
      [number, blockLogs, decodeLogs(blockLogs).filter((event) => REGISTRY_KINDS.has(event.kind))] as const,
  );
  const underlying = await prefetchedAssets(
    blocks.flatMap(([, , events]) => events),
    reads.underlying,
  );
  const pools: Array<IndexedPool> = [];
  for (const [number, blockLogs, events] of blocks) {
    if (events.length === 0) continue;
    const block = {
      chain_id: chain.chain_id,
      number,
      timestamp: 0,
      transactions: [],
      logs: blockLogs,
      internal_transfers: null,
    };
    for (const created of poolsCreated(block, events)) {
      const pool = registryPool(registry, created);
      if (pool === undefined) continue;
      pools.push(pool);
      pending.add(
        poolViewWrites(chain.chain_id, pool).map(([key, value]) => ({ type: "put" as const, key, value })),
      );
    }
    pending.add((await planLendingViews(pending, chain, number, events, underlying)).ops);
    pending.add((await planYieldSplitViews(pending, chain, events, underlying)).ops);
  }
  pending.add(
    await poolTokenMetadataOps(
      pending,
      chain.chain_id,
      pools.flatMap((pool) => [pool.token0, pool.token1]),
      reads.metadata,
    ),
  );
  return { ops: [...pending.ops], pools };
};
