import type { ChainConfig } from "../chains/ChainsConfig.js";
import { aggregate3 } from "../chains/multicall3.js";
import type { BlockRef } from "../chains/readEachChain.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import type { IndexCache } from "../indexer/IndexCache.js";
import type { IndexedPool, TokenMetadata } from "../indexer/IndexRecords.js";
import { poolKey, poolLookupKey, tokenMetadataKey, tokenPoolKey } from "../indexer/indexKeys.js";
import { readTokenMetadata } from "../indexer/readTokenMetadata.js";
import { writeDiscovered } from "../indexer/writeDiscovered.js";
import { Lru } from "../lib/Lru.js";
import { makePromiseSlots } from "../lib/promiseSlots.js";
import type { Db, Operation } from "../storage/Level.js";
import { readNow } from "../storage/readNow.js";
import { lookupTokens, planFactoryLookups } from "./factoryLookups.js";
import { markerServes, type PoolLookupMarker, registryFingerprint } from "./poolLookupMarker.js";
import { ZERO_ADDRESS } from "./standardPools.js";

/**
 * Pools for pricing where the index lacks the history that created them: before prices are
 * planned, the request path asks for the pools of its tokens, and tokens the registry's factories
 * were never asked about are looked up (factoryLookups.ts), all in one aggregate3 per call. What is
 * found goes into the same pool views the indexer writes, so every reader sees it; a marker per
 * token (poolLookupMarker.ts) says it was asked, pool or none, so it is asked once.
 */
export interface PoolLookup {
  /**
   * Makes sure the index knows the pools of `tokens` (and of the chain's hops and stablecoins)
   * that a router would find at `block`. Never throws: a lookup that fails is logged and leaves
   * no marker, so a later request asks again; pricing then uses what the index has.
   */
  readonly ensurePools: (chain: ChainConfig, tokens: ReadonlyArray<string>, block: BlockRef) => Promise<void>;
}

export interface PoolLookupDeps {
  readonly db: Db;
  /** The process's index memory, told what the lookups write (writeDiscovered). */
  readonly cache: IndexCache | undefined;
  readonly rpc: (chainId: number) => ChainRpc | undefined;
  /** First block the index holds (ingest status; 0 for the whole history), undefined while unknown. */
  readonly indexedFrom: (chainId: number) => number | undefined;
  readonly warn?: (message: string, chainId: number) => void;
  /** Markers kept in memory (default 500,000, about 100 bytes each). */
  readonly markersInMemory?: number;
}

/**
 * Tokens per slice of a lookup: one eth_call of MAX_CALL_BYTES (512 KB) holds about 45 tokens'
 * calls on a chain with two V2, two V3 and one V4 registry factories (47 calls of about 240 bytes
 * each per token) and about 33 at 60 calls per token, so 30 keep a slice to one eth_call.
 */
export const LOOKUP_SLICE = 30;
/** Slices asked at once: the next one is planned while the node answers the others. */
const SLICES_IN_FLIGHT = 3;

export const makePoolLookup = (deps: PoolLookupDeps): PoolLookup => {
  // Markers never change once written (a later lookup only raises the block): memory in front of LevelDB.
  const markers = new Lru<string, PoolLookupMarker>(deps.markersInMemory ?? 500_000);
  /** Lookups under way, by `<chain>|<token>`, with the block they read at. */
  const inFlight = new Map<string, { readonly block: number; readonly done: Promise<void> }>();
  const fingerprints = new WeakMap<ChainConfig, string>();
  const fingerprintOf = (chain: ChainConfig) => {
    let fingerprint = fingerprints.get(chain);
    if (fingerprint === undefined) {
      fingerprint = registryFingerprint(chain);
      fingerprints.set(chain, fingerprint);
    }
    return fingerprint;
  };
  const memoryKey = (chainId: number, token: string) => `${chainId}|${token}`;

  /**
   * The lookups of `tokens`, LOOKUP_SLICE tokens at a time, SLICES_IN_FLIGHT slices at once. Planning
   * a slice is synchronous work (its V4 pool ids are hashed here): a 1,200-token wallet planned in
   * one piece held this process's thread for over a second, and for several on a loaded machine,
   * long enough for its chain leases to lapse. Each slice writes what it found (and its markers)
   * as it is answered; a failed slice leaves its tokens to be asked again, the others keep theirs.
   */
  const lookup = async (
    chain: ChainConfig,
    rpc: ChainRpc,
    tokens: ReadonlyArray<string>,
    block: BlockRef,
  ) => {
    const slots = makePromiseSlots(SLICES_IN_FLIGHT);
    const slices: Array<ReadonlyArray<string>> = [];
    for (let i = 0; i < tokens.length; i += LOOKUP_SLICE) slices.push(tokens.slice(i, i + LOOKUP_SLICE));
    const outcomes = await Promise.allSettled(
      slices.map((slice, i) =>
        slots(async () => {
          // Requests and lease renewals waiting for the thread go first.
          if (i > 0) await new Promise((resolve) => setImmediate(resolve));
          await lookupSlice(chain, rpc, slice, block);
        }),
      ),
    );
    const failed = outcomes.find((outcome) => outcome.status === "rejected");
    if (failed !== undefined) throw failed.reason;
  };

  /** One aggregate3 (split by size if it must be) for every pair of `tokens`, then one write. */
  const lookupSlice = async (
    chain: ChainConfig,
    rpc: ChainRpc,
    tokens: ReadonlyArray<string>,
    block: BlockRef,
  ) => {
    const chainId = chain.chain_id;
    const plan = planFactoryLookups(chain, tokens);
    const results = plan.calls.length === 0 ? [] : await aggregate3(rpc, plan.calls, { block });
    const found = plan.decode(results);
    const ops: Array<Operation> = [];
    // A pool the indexer saw created keeps its record (and its creation block).
    const indexed = await readNow(
      deps.db,
      found.map((pool) => poolKey(chainId, pool.pool)),
    );
    found.forEach((pool, i) => {
      if (indexed[i] !== undefined) return;
      // A lookup cannot tell when a pool was created: the block it was found at stands for it.
      const record: IndexedPool = { ...pool, created_block: block.number };
      ops.push({ type: "put", key: poolKey(chainId, pool.pool), value: record });
      for (const token of [pool.token0, pool.token1])
        ops.push({ type: "put", key: tokenPoolKey(chainId, token, pool.pool), value: pool.pool });
    });
    ops.push(...(await metadataOps(chainId, rpc, found)));
    const marker: PoolLookupMarker = { block: block.number, registry: fingerprintOf(chain) };
    for (const token of tokens) ops.push({ type: "put", key: poolLookupKey(chainId, token), value: marker });
    await writeDiscovered(deps.db, deps.cache, ops);
    for (const token of tokens) markers.set(memoryKey(chainId, token), marker);
  };

  /**
   * Metadata of the found pools' tokens the index has not met (pricing needs their decimals), read
   * as the indexer reads it for tokens of new pools. A token without decimals is not recorded: an
   * answer of nulls may be a failing node, and the token is read again at its next lookup.
   */
  const metadataOps = async (
    chainId: number,
    rpc: ChainRpc,
    found: ReadonlyArray<{ readonly token0: string; readonly token1: string }>,
  ): Promise<ReadonlyArray<Operation>> => {
    const tokens = [...new Set(found.flatMap((pool) => [pool.token0, pool.token1]))].filter(
      (token) => token !== ZERO_ADDRESS,
    );
    if (tokens.length === 0) return [];
    const known = await readNow(
      deps.db,
      tokens.map((token) => tokenMetadataKey(chainId, token)),
    );
    const missing = tokens.filter((_, i) => known[i] === undefined);
    const read = await readTokenMetadata(rpc, missing);
    return missing.flatMap((token, i) => {
      const metadata = read[i];
      return metadata === undefined || metadata.decimals === null
        ? []
        : [
            {
              type: "put" as const,
              key: tokenMetadataKey(chainId, token),
              value: metadata satisfies TokenMetadata,
            },
          ];
    });
  };

  const ensurePools = async (
    chain: ChainConfig,
    tokens: ReadonlyArray<string>,
    block: BlockRef,
  ): Promise<void> => {
    const chainId = chain.chain_id;
    try {
      const registry = fingerprintOf(chain);
      const indexedFrom = deps.indexedFrom(chainId);
      // An index that holds the whole history saw every registry pool being created: nothing to
      // ask, and a 1,200-token wallet's first request must not pay for 1,200 lookups.
      if (indexedFrom === 0) return;
      const serves = (marker: PoolLookupMarker | undefined) =>
        markerServes(marker, block.number, indexedFrom, registry);
      const wanted = lookupTokens(chain, tokens);
      let unknown = wanted.filter((token) => !serves(markers.get(memoryKey(chainId, token))));
      if (unknown.length === 0) return;
      const stored = (await readNow(
        deps.db,
        unknown.map((token) => poolLookupKey(chainId, token)),
      )) as ReadonlyArray<PoolLookupMarker | undefined>;
      unknown = unknown.filter((token, i) => {
        const marker = stored[i];
        if (marker !== undefined) markers.set(memoryKey(chainId, token), marker);
        return !serves(marker);
      });
      if (unknown.length === 0) return;

      // A token some request is already looking up at a block that serves this one is waited for.
      const waits: Array<Promise<void>> = [];
      const ask: Array<string> = [];
      for (const token of unknown) {
        const running = inFlight.get(memoryKey(chainId, token));
        if (running !== undefined && serves({ block: running.block, registry })) waits.push(running.done);
        else ask.push(token);
      }
      if (ask.length > 0) {
        const rpc = deps.rpc(chainId);
        if (rpc === undefined) throw new Error("no RPC client for this chain");
        const done = lookup(chain, rpc, ask, block).catch((error: unknown) => {
          deps.warn?.(
            `factory pool lookup of ${ask.length} tokens on ${chain.name} (${chainId}) at block ${block.number} failed: ${error instanceof Error ? error.message : String(error)}`,
            chainId,
          );
        });
        const entry = { block: block.number, done };
        for (const token of ask) inFlight.set(memoryKey(chainId, token), entry);
        void done.finally(() => {
          for (const token of ask)
            if (inFlight.get(memoryKey(chainId, token)) === entry) inFlight.delete(memoryKey(chainId, token));
        });
        waits.push(done);
      }
      await Promise.all(waits);
    } catch (error) {
      deps.warn?.(
        `factory pool lookup on ${chain.name} (${chainId}) failed: ${error instanceof Error ? error.message : String(error)}`,
        chainId,
      );
    }
  };

  return { ensurePools };
};
