import { describe, expect, it } from "vitest";
import { ProtocolConfig } from "../../../src/chains/ChainsConfig.js";
import { IndexCache } from "../../../src/indexer/IndexCache.js";
import { makeIndexReader } from "../../../src/indexer/IndexReader.js";
import type { IndexedPool } from "../../../src/indexer/IndexRecords.js";
import { poolKey, poolLookupKey, tokenMetadataKey, tokenPoolKey } from "../../../src/indexer/indexKeys.js";
import { planPricing } from "../../../src/pricing/planPricing.js";
import { makePoolLookup, type PoolLookupDeps } from "../../../src/pricing/poolLookup.js";
import { markerServes, registryFingerprint } from "../../../src/pricing/poolLookupMarker.js";
import { v4PoolId, ZERO_ADDRESS } from "../../../src/pricing/standardPools.js";
import type { Db } from "../../../src/storage/Level.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { fakeFactoryNode } from "../../support/fakeFactoryNode.js";
import { memoryDb } from "../../support/indexerBlocks.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const USDC = address(0xc1);
const WETH = address(0xe1);
const TOKEN = address(0xd1);
const HOSTILE = address(0xd2);
const V2 = address(0xf2);
const V3 = address(0xf3);
const MANAGER = address(0xf4);
const STATE_VIEW = address(0xf5);
const PAIR = address(0x1001);
const POOL = address(0x1002);

const protocols = [
  ProtocolConfig.make({ protocol: "UniswapV2", kind: "v2", address: V2 }),
  ProtocolConfig.make({ protocol: "UniswapV3", kind: "v3", address: V3 }),
  ProtocolConfig.make({ protocol: "UniswapV4", kind: "v4", address: MANAGER, state_view: STATE_VIEW }),
];
const chain = testChainConfig({ wrapped_native: WETH, stablecoins: [USDC], protocols });
const nativeKey = {
  currency0: ZERO_ADDRESS,
  currency1: USDC,
  fee: 500,
  tickSpacing: 10,
  hooks: ZERO_ADDRESS,
};

/** A node with TOKEN/USDC on V2, WETH/USDC on V3 and ETH/USDC on V4, and the metadata of all three. */
const seededNode = () => {
  const node = fakeFactoryNode();
  node.v2(V2, TOKEN, USDC, PAIR);
  node.v3(V3, WETH, USDC, 500, POOL);
  node.v3Spacing(V3, 500, 10);
  node.v4(STATE_VIEW, v4PoolId(nativeKey));
  node.token(TOKEN, "TKN", 18);
  node.token(USDC, "USDC", 6);
  node.token(WETH, "WETH", 18);
  return node;
};

const setup = (node: ReturnType<typeof fakeFactoryNode>, deps: Partial<PoolLookupDeps> = {}) => {
  const db = memoryDb();
  const cache = new IndexCache();
  const warnings: Array<string> = [];
  const lookup = makePoolLookup({
    db,
    cache,
    rpc: () => node.rpc,
    indexedFrom: () => 50,
    warn: (message) => warnings.push(message),
    ...deps,
  });
  return { db, cache, lookup, warnings, reader: makeIndexReader(db, cache) };
};

const keysOf = async (db: Db, prefix: string) => {
  const out: Array<string> = [];
  for await (const key of db.keys({ gte: prefix, lt: `${prefix}~` })) out.push(key as string);
  return out;
};

describe("the factory pool lookup", () => {
  it("default: one eth_call looks up every token, and the pools, their tokens' metadata and a marker per token land in the index views", async () => {
    const node = seededNode();
    const { db, lookup, reader } = setup(node);
    // The index memory has already answered "no pools" for USDC: the write must make it forget.
    expect(await reader.poolsForToken(1, USDC)).toEqual([]);
    await lookup.ensurePools(chain, [TOKEN], { number: 100 });

    // The lookup, then the metadata of the found pools' tokens (the index had none).
    expect(node.ethCalls).toHaveLength(2);
    const pair = (await db.get(poolKey(1, PAIR))) as IndexedPool;
    expect(pair).toEqual({
      pool: PAIR,
      kind: "v2",
      protocol: "UniswapV2",
      factory: V2,
      token0: USDC,
      token1: TOKEN,
      fee: null,
      tick_spacing: null,
      hooks: null,
      created_block: 100,
    });
    expect(await db.get(tokenPoolKey(1, TOKEN, PAIR))).toBe(PAIR);
    expect(await db.get(tokenPoolKey(1, USDC, PAIR))).toBe(PAIR);
    expect(await db.get(tokenPoolKey(1, ZERO_ADDRESS, v4PoolId(nativeKey)))).toBe(v4PoolId(nativeKey));
    expect(new Set((await reader.poolsForToken(1, USDC)).map((p) => p.pool))).toEqual(
      new Set([PAIR, POOL, v4PoolId(nativeKey)]),
    );
    expect(await db.get(tokenMetadataKey(1, TOKEN))).toEqual({ name: "TKN", symbol: "TKN", decimals: 18 });
    // Every token covered gets a marker, the hops and stablecoins included.
    const marker = { block: 100, registry: registryFingerprint(chain) };
    for (const token of [TOKEN, WETH, USDC]) expect(await db.get(poolLookupKey(1, token))).toEqual(marker);

    // Pricing plans reads of exactly these pools now.
    const plan = await planPricing(reader, chain, [TOKEN, WETH]);
    expect(plan.calls.length).toBeGreaterThanOrEqual(3);
  });

  it("behavior: a token with a marker is not asked again, from memory or from LevelDB; a new token is asked alone", async () => {
    const node = seededNode();
    const { db, cache, lookup } = setup(node);
    await lookup.ensurePools(chain, [TOKEN], { number: 100 });
    const after = node.ethCalls.length;
    await lookup.ensurePools(chain, [TOKEN, WETH, USDC, ZERO_ADDRESS], { number: 120 });
    expect(node.ethCalls).toHaveLength(after);

    // Another process (or a restart) over the same LevelDB reads the markers instead of asking.
    const restarted = makePoolLookup({ db, cache, rpc: () => node.rpc, indexedFrom: () => 50 });
    await restarted.ensurePools(chain, [TOKEN], { number: 130 });
    expect(node.ethCalls).toHaveLength(after);

    const NEW = address(0xd9);
    await restarted.ensurePools(chain, [TOKEN, NEW], { number: 130 });
    // NEW against USDC and WETH: 1 + 4 + 4 (+4 native) calls and the 4 V3 spacings, and no pool: no metadata read.
    expect(node.ethCalls.slice(after)).toEqual([4 + (1 + 4 + 4) + (1 + 4 + 8)]);
    expect(await db.get(poolLookupKey(1, NEW))).toEqual({ block: 130, registry: registryFingerprint(chain) });
  });

  it("behavior: concurrent requests for the same tokens share one lookup", async () => {
    const node = seededNode();
    const { lookup } = setup(node);
    await Promise.all(Array.from({ length: 20 }, () => lookup.ensurePools(chain, [TOKEN], { number: 100 })));
    expect(node.ethCalls).toHaveLength(2);
  });

  it("behavior: a factory that reverts is no pool; a failed eth_call never throws and leaves no marker, so the next request asks again", async () => {
    const node = seededNode();
    node.revert(V2);
    const { db, lookup, warnings } = setup(node);
    node.failNext(1);
    await expect(lookup.ensurePools(chain, [TOKEN, HOSTILE], { number: 100 })).resolves.toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(await keysOf(db, "idx!pl!")).toEqual([]);

    await lookup.ensurePools(chain, [TOKEN, HOSTILE], { number: 101 });
    expect(await db.get(poolKey(1, PAIR))).toBeUndefined();
    expect(await db.get(poolKey(1, POOL))).toBeDefined();
    expect(await db.get(poolLookupKey(1, TOKEN))).toEqual({
      block: 101,
      registry: registryFingerprint(chain),
    });
    expect(await db.get(poolLookupKey(1, HOSTILE))).toEqual({
      block: 101,
      registry: registryFingerprint(chain),
    });
  });

  it("behavior: a pool the indexer recorded keeps its record and creation block", async () => {
    const node = seededNode();
    const { db, lookup } = setup(node);
    const indexed: IndexedPool = {
      pool: PAIR,
      kind: "v2",
      protocol: "UniswapV2",
      factory: V2,
      token0: USDC,
      token1: TOKEN,
      fee: null,
      tick_spacing: null,
      hooks: null,
      created_block: 60,
    };
    await db.put(poolKey(1, PAIR), indexed);
    await lookup.ensurePools(chain, [TOKEN], { number: 100 });
    expect(await db.get(poolKey(1, PAIR))).toEqual(indexed);
  });

  it("behavior: markers go stale after a gap in the index or a change of registry, not with time", async () => {
    const node = seededNode();
    let indexedFrom: number | undefined = 50;
    const { lookup } = setup(node, { indexedFrom: () => indexedFrom });
    await lookup.ensurePools(chain, [TOKEN], { number: 100 });
    let calls = node.ethCalls.length;
    // The indexer follows: a marker at 100 serves block 10,000.
    await lookup.ensurePools(chain, [TOKEN], { number: 10_000 });
    expect(node.ethCalls).toHaveLength(calls);
    // The follower skipped history past the marker: pools may have been created in the gap.
    indexedFrom = 5_000;
    await lookup.ensurePools(chain, [TOKEN], { number: 10_000 });
    expect(node.ethCalls.length).toBeGreaterThan(calls);
    calls = node.ethCalls.length;
    // A new stablecoin in the chains file: what was asked before did not include it.
    const grown = testChainConfig({ wrapped_native: WETH, stablecoins: [USDC, address(0xc2)], protocols });
    await lookup.ensurePools(grown, [TOKEN], { number: 10_001 });
    expect(node.ethCalls.length).toBeGreaterThan(calls);
  });

  it("behavior: a marker serves reads at or below its block, and any read once the index holds every block after it", () => {
    const registry = "r";
    const at = (block: number) => ({ block, registry });
    // Index from 50: a marker at 49 or later leaves no block unseen.
    expect(markerServes(at(49), 1_000, 50, registry)).toBe(true);
    expect(markerServes(at(48), 1_000, 50, registry)).toBe(false);
    // A marker of a historical lookup below the index serves reads at or below its block only.
    expect(markerServes(at(30), 30, 50, registry)).toBe(true);
    expect(markerServes(at(30), 20, 50, registry)).toBe(true);
    expect(markerServes(at(30), 31, 50, registry)).toBe(false);
    // Where the index starts is not known yet: only reads at or below the marker.
    expect(markerServes(at(100), 100, undefined, registry)).toBe(true);
    expect(markerServes(at(100), 101, undefined, registry)).toBe(false);
    expect(markerServes(at(100), 50, 0, "other")).toBe(false);
    expect(markerServes(undefined, 50, 0, registry)).toBe(false);
  });

  it("behavior: a 500-token lookup is planned a slice at a time, other work running between slices", async () => {
    const node = seededNode();
    const { lookup } = setup(node);
    // A task that runs at every turn of the event loop, as a lease renewal or another request would.
    let turns = 0;
    let beating = true;
    const beat = () => {
      turns++;
      if (beating) setImmediate(beat);
    };
    setImmediate(beat);
    const turnAtCall: Array<number> = [];
    const record = node.ethCalls.push.bind(node.ethCalls);
    node.ethCalls.push = (...counts: Array<number>) => {
      turnAtCall.push(turns);
      return record(...counts);
    };
    await lookup.ensurePools(
      chain,
      Array.from({ length: 500 }, (_, i) => address(0x30000 + i)),
      { number: 100 },
    );
    beating = false;
    // 17 slices, at most 3 asked at once: planned in one piece, every call would go out in one turn.
    expect(new Set(turnAtCall).size).toBeGreaterThanOrEqual(4);
    expect(node.ethCalls.length).toBeGreaterThanOrEqual(17);
  });

  it("behavior: 100 tokens cost one aggregate3 per slice of 30 tokens and one metadata read", async () => {
    const node = seededNode();
    const { lookup } = setup(node);
    const tokens = Array.from({ length: 100 }, (_, i) => address(0x20000 + i));
    await lookup.ensurePools(chain, tokens, { number: 100 });
    // 102 tokens (the hop and the stablecoin last) in 4 slices, each asking the 4 spacings; 2
    // counterparts each (WETH-USDC once): 201 pairs x 9 calls + 101 pairs with WETH x 4 native
    // keys; then the metadata of the one pool's tokens, WETH and USDC, 3 calls each.
    expect(node.ethCalls).toHaveLength(5);
    expect(node.ethCalls.reduce((a, b) => a + b, 0)).toBe(4 * 4 + 201 * 9 + 101 * 4 + 2 * 3);
  });
});
