import { readFile } from "node:fs/promises";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChainConfig, decodeChainsConfigFile } from "../../../src/chains/ChainsConfig.js";
import type { CallOptions, ChainRpc } from "../../../src/chains/rpc/ChainRpc.js";
import { getLogs } from "../../../src/chains/rpc/getLogs.js";
import type { RpcLog } from "../../../src/chains/rpc/RpcTypes.js";
import { backfillRecordKey } from "../../../src/discovery/registry/BackfillRecord.js";
import { registrySources } from "../../../src/discovery/registry/registrySources.js";
import { makeRegistryBackfill, type RegistryBackfillDeps } from "../../../src/discovery/registryBackfill.js";
import { BLOCK_MESSAGE_VERSION, type ChainBlock } from "../../../src/domain/ChainBlock.js";
import { planBlock } from "../../../src/indexer/applyBlock.js";
import type { IndexedPool, LendingToken, TokenMetadata } from "../../../src/indexer/IndexRecords.js";
import { PREFIX, tokenMetadataKey } from "../../../src/indexer/indexKeys.js";
import { readTokenMetadata } from "../../../src/indexer/readTokenMetadata.js";
import { readUnderlying } from "../../../src/indexer/readUnderlying.js";
import { readVaultProbes } from "../../../src/indexer/readVaultProbes.js";
import { normalizeLog } from "../../../src/ingest/normalizeBlock.js";
import type { Db } from "../../../src/storage/Level.js";
import { openTestChainRpc } from "../../support/chainRpc.js";
import { startTestDevnet, type TestDevnet } from "../../support/devnetFixture.js";
import { memoryDb } from "../../support/indexerBlocks.js";
import { type ProviderProxy, startProviderProxy } from "../../support/providerProxy.js";

/**
 * The registry backfill on the seeded devnet, whose chains file lists every registry from block 0:
 * an empty index told that it starts at the head reads the registries' own events of the whole
 * history and ends with the records an index built from block 0 holds, straight on anvil, through
 * a provider that caps eth_getLogs at 50 blocks and limits its rate, and when stopped half way and
 * started again; on a node that no longer keeps the older logs, V2 factories' pairs are listed.
 */

/** The views the registry's events make. */
const REGISTRY_VIEWS = ["pool!", "tp!", "lt!", "ys!", "ym!"];

type Views = Map<string, unknown>;

const dumpViews = async (db: Db): Promise<Views> => {
  const out: Views = new Map();
  for (const view of REGISTRY_VIEWS)
    for await (const [key, value] of db.iterator({ gte: PREFIX + view, lt: `${PREFIX}${view}~` }))
      out.set(key as string, value);
  return out;
};

/**
 * A Comet's record comes from its users' events (its first Supply), not from a registry event: the
 * backfill does not make it (positions discovery reads configured Comets, cometMarkets.ts).
 */
const withoutComets = (views: Views): Views =>
  new Map(
    [...views].filter(([key, value]) => !(key.includes("!lt!") && (value as LendingToken).kind === "comet")),
  );

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect);

interface ChainReference {
  readonly chain: ChainConfig;
  readonly head: number;
  /** The registry views of an index built from block 0 up to the head (exclusive). */
  readonly views: Views;
  readonly metadata: Map<string, TokenMetadata>;
}

/**
 * What the indexer holds after every block before the head: `planBlock`, the indexer's own
 * planning, over each block with logs as ingest publishes a history block (logs only), with the
 * indexer's reads. Blocks without logs write only block times, which no compared view holds.
 */
const buildReference = async (chain: ChainConfig, rpc: ChainRpc, head: number): Promise<ChainReference> => {
  const logs = await run(getLogs(rpc, {}, 0, head - 1));
  const blocks = new Map<number, Array<RpcLog>>();
  for (const log of logs) {
    const number = Number.parseInt(log.blockNumber, 16);
    blocks.set(number, [...(blocks.get(number) ?? []), log]);
  }
  const db = memoryDb();
  for (const number of [...blocks.keys()].sort((a, b) => a - b)) {
    const hash = blocks.get(number)![0]!.blockHash.toLowerCase();
    const block = {
      version: BLOCK_MESSAGE_VERSION,
      chain_id: chain.chain_id,
      number,
      hash,
      parent_hash: hash,
      timestamp: number,
      source: "history",
      transactions: [],
      logs: blocks
        .get(number)!
        .map(normalizeLog)
        .sort((a, b) => a.log_index - b.log_index),
      internal_transfers: null,
    } as unknown as ChainBlock;
    const ops = await planBlock(db, chain, block, {
      metadata: (tokens) => readTokenMetadata(rpc, tokens),
      underlying: (contracts) => readUnderlying(rpc, contracts),
      vaults: (tokens) => readVaultProbes(rpc, tokens),
    });
    await db.batch([...ops]);
  }
  const views = await dumpViews(db);
  const metadata = new Map<string, TokenMetadata>();
  for await (const [key, value] of db.iterator({ gte: `${PREFIX}tm!`, lt: `${PREFIX}tm!~` }))
    metadata.set(key as string, value as TokenMetadata);
  await db.close();
  return { chain, head, views, metadata };
};

/** Every token of the backfill's pools has the reference's metadata (those read with decimals). */
const expectPoolTokenMetadata = async (db: Db, reference: ChainReference, views: Views) => {
  const tokens = new Set<string>();
  for (const [key, value] of views)
    if (key.includes("!pool!"))
      for (const t of [(value as IndexedPool).token0, (value as IndexedPool).token1]) tokens.add(t);
  tokens.delete("0x0000000000000000000000000000000000000000");
  let checked = 0;
  for (const token of tokens) {
    const key = tokenMetadataKey(reference.chain.chain_id, token);
    const expected = reference.metadata.get(key);
    if (expected === undefined || expected.decimals === null) continue;
    expect(await db.get(key), `${reference.chain.name} metadata of ${token}`).toEqual(expected);
    checked++;
  }
  expect(checked).toBeGreaterThan(0);
};

let devnet: TestDevnet;
let chains: ReadonlyArray<ChainConfig>;
const references = new Map<number, ChainReference>();
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  devnet = await startTestDevnet();
  const file = await run(
    decodeChainsConfigFile(JSON.parse(await readFile(devnet.devnet.chainsConfigPath, "utf8"))),
  );
  chains = file.chains;
  await Promise.all(
    chains.map(async (chain) => {
      const { rpc, close } = await openTestChainRpc(chain.rpc_url!, { chainId: chain.chain_id });
      try {
        const head = Number.parseInt(await rpc.request<string>("eth_blockNumber", []), 16);
        references.set(chain.chain_id, await buildReference(chain, rpc, head));
      } finally {
        await close();
      }
    }),
  );
}, 300_000);

afterAll(async () => {
  for (const close of closers.splice(0)) await close();
  await devnet?.stop();
});

/** A ChainRpc over `url` (its monitor probes what the node keeps), closed after the file. */
const chainRpc = async (url: string, chainId: number) => {
  const opened = await openTestChainRpc(url, { chainId });
  closers.push(opened.close);
  await opened.firstProbe();
  return opened.rpc;
};

/**
 * `rpc` with its single calls (eth_getLogs among them) passed through `around`, which may delay or
 * note them; batches and Promise reads go to `rpc` itself (its private state is its own).
 */
const intercept = (
  rpc: ChainRpc,
  around: (
    method: string,
    params: ReadonlyArray<unknown>,
    call: Effect.Effect<unknown, unknown>,
  ) => Effect.Effect<unknown, unknown>,
): ChainRpc => {
  const wrapped = Object.create(rpc) as ChainRpc;
  Object.defineProperties(wrapped, {
    call: {
      value: (method: string, params: ReadonlyArray<unknown>, options?: CallOptions) =>
        around(method, params, rpc.call(method, params, options)),
    },
    batch: { value: rpc.batch.bind(rpc) },
    request: { value: rpc.request.bind(rpc) },
  });
  return wrapped;
};

const fromBlockOf = (params: ReadonlyArray<unknown>) =>
  Number.parseInt((params[0] as { fromBlock: string }).fromBlock, 16);

const backfillOf = (
  db: Db,
  rpcs: ReadonlyMap<number, ChainRpc>,
  settings: RegistryBackfillDeps["settings"] = {},
) =>
  makeRegistryBackfill({
    db,
    cache: undefined,
    rpc: (chainId) => rpcs.get(chainId),
    indexedFrom: (chainId) => references.get(chainId)?.head,
    now: () => Date.now(),
    settings: { waitMs: 50, retryMs: 200, ...settings },
  });

describe("the registry backfill", { timeout: 300_000 }, () => {
  it("default: an empty index that starts at the head ends with the registry records of an index built from block 0, on every chain", async () => {
    for (const chain of chains) {
      const reference = references.get(chain.chain_id)!;
      expect(reference.views.size, `${chain.name} has registry records to find`).toBeGreaterThan(0);
      const db = memoryDb();
      const rpc = await chainRpc(chain.rpc_url!, chain.chain_id);
      const backfill = backfillOf(db, new Map([[chain.chain_id, rpc]]));
      backfill.start(chain);
      await backfill.done(chain.chain_id);
      const progress = backfill.progress(chain.chain_id)!;
      // From the oldest registry deployment's start_block (the node keeps every log).
      const from = Math.min(...registrySources(chain).map((source) => source.start));
      expect(progress).toMatchObject({ from, to: reference.head - 1, next: reference.head, done: true });
      expect(progress.error).toBeUndefined();
      expect(progress.logs).toBeGreaterThan(0);
      const views = await dumpViews(db);
      expect(views, chain.name).toEqual(withoutComets(reference.views));
      await expectPoolTokenMetadata(db, reference, views);
    }
    // Chain 1 has every kind of registry record: pools of each design, Aave and cToken lending
    // tokens, Pendle PTs, YTs and a market.
    const ethereum = [...references.get(1)!.views.keys()];
    for (const view of REGISTRY_VIEWS)
      expect(
        ethereum.some((key) => key.startsWith(PREFIX + view)),
        view,
      ).toBe(true);
  });

  it("behavior: through a provider capping eth_getLogs at 50 blocks and limiting its rate, the records are the same, and no range asked is over the cap", async () => {
    const chain = chains.find((c) => c.chain_id === 1)!;
    const reference = references.get(1)!;
    const proxy: ProviderProxy = await startProviderProxy({
      target: chain.rpc_url!,
      style: "quicknode",
      maxLogsRange: 50,
      rateLimit: { rps: 100, burst: 50 },
    });
    closers.push(proxy.stop);
    const rpc = await chainRpc(proxy.url, 1);
    proxy.resetStats();
    const db = memoryDb();
    const backfill = backfillOf(db, new Map([[1, rpc]]));
    backfill.start(chain);
    await backfill.done(1);
    const progress = backfill.progress(1)!;
    expect(progress).toMatchObject({ next: reference.head, done: true });
    expect(await dumpViews(db)).toEqual(withoutComets(reference.views));
    const stats = proxy.stats();
    // Past the first refusal (which teaches the cap), every range asked fits it.
    expect(stats.refusals.range).toBeLessThanOrEqual(1);
    expect(stats.methods.eth_getLogs ?? 0).toBeGreaterThanOrEqual(Math.ceil(reference.head / 50));
    expect(stats.methods.eth_getLogs ?? 0).toBeLessThanOrEqual(2 * Math.ceil(reference.head / 50) + 2);
    await backfill.stop();
  });

  it("behavior: stopped half way and started again on the same index, it reads on from its last step and ends with the same records", async () => {
    const chain = chains.find((c) => c.chain_id === 1)!;
    const reference = references.get(1)!;
    const proxy = await startProviderProxy({
      target: chain.rpc_url!,
      style: "quicknode",
      maxLogsRange: 50,
      rateLimit: { rps: 200, burst: 100 },
    });
    closers.push(proxy.stop);
    const rpc = await chainRpc(proxy.url, 1);
    const half = Math.floor(reference.head / 2);
    // The first run's eth_getLogs wait at the middle of the history until the run is told to stop.
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reachedHalf = () => {};
    const reached = new Promise<void>((resolve) => {
      reachedHalf = resolve;
    });
    const gated = intercept(rpc, (method, params, call) => {
      if (method !== "eth_getLogs" || fromBlockOf(params) < half) return call;
      reachedHalf();
      return Effect.promise(() => gate).pipe(Effect.zipRight(call));
    });
    const db = memoryDb();
    const settings = { stretchBlocks: 100 };
    const first = backfillOf(db, new Map([[1, gated]]), settings);
    first.start(chain);
    await reached;
    const stopped = first.stop();
    release();
    await stopped;
    expect(first.progress(1)!.done).toBe(false);
    const record = (await db.get(backfillRecordKey(1))) as { next: number; done?: boolean };
    expect(record.next).toBeGreaterThan(0);
    expect(record.next).toBeLessThan(reference.head);

    // The second run, on the same index, asks nothing below where the first one's record stands.
    const asked: Array<number> = [];
    const watched = intercept(rpc, (method, params, call) => {
      if (method === "eth_getLogs") asked.push(fromBlockOf(params));
      return call;
    });
    const second = backfillOf(db, new Map([[1, watched]]), settings);
    second.start(chain);
    await second.done(1);
    expect(second.progress(1)).toMatchObject({ next: reference.head, done: true });
    expect(asked.length).toBeGreaterThan(0);
    expect(Math.min(...asked)).toBe(record.next);
    expect(await dumpViews(db)).toEqual(withoutComets(reference.views));
  });

  it("behavior: on a node that keeps the logs of its newest blocks only, V2 factories' older pairs are listed through allPairs, and the rest is read from the logs", async () => {
    const chain = chains.find((c) => c.chain_id === 1)!;
    const reference = references.get(1)!;
    const pools = [...reference.views].filter(([key]) => key.includes("!pool!")) as Array<
      [string, IndexedPool]
    >;
    // Keep the logs of the newest blocks only, cutting the pools' creations in two.
    const created = pools.map(([, p]) => p.created_block).sort((a, b) => a - b);
    const cut = created[Math.floor(created.length / 2)]!;
    const proxy = await startProviderProxy({
      target: chain.rpc_url!,
      style: "reth",
      prunedWindow: reference.head - cut,
    });
    closers.push(proxy.stop);
    const rpc = await chainRpc(proxy.url, 1);
    const logsFrom = rpc.capabilities().logsFrom!;
    expect(logsFrom).toBeGreaterThan(0);
    const db = memoryDb();
    const backfill = backfillOf(db, new Map([[1, rpc]]));
    backfill.start(chain);
    await backfill.done(1);
    const progress = backfill.progress(1)!;
    expect(progress.done).toBe(true);
    expect(progress.from).toBe(logsFrom);
    expect(progress.unavailable).toEqual({ from: 0, to: logsFrom - 1 });
    expect(progress.pairs!.listed).toBe(progress.pairs!.of);
    expect(progress.pairs!.of).toBeGreaterThan(0);

    const views = await dumpViews(db);
    const found = new Map(
      [...views].filter(([key]) => key.includes("!pool!")) as Array<[string, IndexedPool]>,
    );
    let listed = 0;
    for (const [key, pool] of pools) {
      if (pool.created_block >= logsFrom) {
        // Read from the logs: the indexer's very record.
        expect(found.get(key), key).toEqual(pool);
      } else if (pool.kind === "v2") {
        // Listed: the same record but for the block, which a listing cannot know.
        expect(found.get(key), key).toEqual({ ...pool, created_block: found.get(key)!.created_block });
        expect(found.get(key)!.created_block).toBeGreaterThanOrEqual(reference.head - 1);
        listed++;
      } else expect(found.has(key), `${key} (${pool.kind}, before the node's logs)`).toBe(false);
    }
    expect(listed).toBeGreaterThan(0);
    expect(listed).toBe(progress.pairs!.of);
    // Every pool found has its two token entries, as the indexer writes them.
    for (const pool of found.values())
      for (const token of [pool.token0, pool.token1])
        expect(views.get(`${PREFIX}tp!${String(1).padStart(12, "0")}!${token}!${pool.pool}`)).toBe(pool.pool);
    await backfill.stop();
  });
});
