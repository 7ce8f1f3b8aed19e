import { decodeFunctionData, encodeAbiParameters, type Hex, parseAbi, toFunctionSelector } from "viem";
import { describe, expect, it } from "vitest";
import { ProtocolConfig } from "../../../src/chains/ChainsConfig.js";
import type { RpcLog } from "../../../src/chains/rpc/RpcTypes.js";
import { EVENT_TOPICS } from "../../../src/decoding/index.js";
import { backfillRecordKey } from "../../../src/discovery/registry/BackfillRecord.js";
import { makeRegistryBackfill, type RegistryBackfillDeps } from "../../../src/discovery/registryBackfill.js";
import type { IndexedPool } from "../../../src/indexer/IndexRecords.js";
import { poolKey, tokenMetadataKey, tokenPoolKey } from "../../../src/indexer/indexKeys.js";
import type { Db } from "../../../src/storage/Level.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { fakeChainRpc } from "../../support/chainRpc.js";
import { memoryDb } from "../../support/indexerBlocks.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const FACTORY = address(0xf2);
const TOKENS = [address(0xa1), address(0xa2), address(0xa3)];
/** Pair `i`: address 0x10000 + i, its tokens two of TOKENS, sorted. */
const pairAt = (i: number) => address(0x10000 + i);
const tokensOf = (i: number): [string, string] => {
  const a = TOKENS[i % 3]!;
  const b = TOKENS[(i + 1) % 3]!;
  return a < b ? [a, b] : [b, a];
};

const chain = testChainConfig({
  protocols: [ProtocolConfig.make({ protocol: "UniswapV2", kind: "v2", address: FACTORY })],
});

const multicall = parseAbi([
  "function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[])",
]);
const SELECTORS = {
  allPairsLength: toFunctionSelector("allPairsLength()"),
  allPairs: toFunctionSelector("allPairs(uint256)"),
  token0: toFunctionSelector("token0()"),
  token1: toFunctionSelector("token1()"),
  name: toFunctionSelector("name()"),
  symbol: toFunctionSelector("symbol()"),
  decimals: toFunctionSelector("decimals()"),
};
const word = (value: bigint | string) =>
  encodeAbiParameters([{ type: "uint256" }], [typeof value === "bigint" ? value : BigInt(value)]);

/**
 * A node with one V2 factory of `count` pairs (Multicall3 aggregate3 over `allPairsLength`,
 * `allPairs`, `token0`, `token1` and the tokens' metadata), keeping logs from `logsFrom` on, whose
 * eth_getLogs answers `logs` (filtered by range) and fails as told.
 */
const fakeNode = (options: {
  count: number;
  logsFrom: number;
  head: number;
  logs?: ReadonlyArray<RpcLog>;
}) => {
  const aggregates: Array<{ selector: string; calls: number }> = [];
  const ranges: Array<[number, number]> = [];
  let failLogs = 0;
  const answer = (target: string, data: Hex) => {
    const selector = data.slice(0, 10);
    const ok = (returnData: Hex) => ({ success: true, returnData });
    if (target === FACTORY && selector === SELECTORS.allPairsLength) return ok(word(BigInt(options.count)));
    if (target === FACTORY && selector === SELECTORS.allPairs) {
      const i = Number(BigInt(`0x${data.slice(10)}`));
      return i < options.count ? ok(word(pairAt(i))) : { success: false, returnData: "0x" as Hex };
    }
    const pair = Number.parseInt(target.slice(2), 16) - 0x10000;
    if (pair >= 0 && pair < options.count && (selector === SELECTORS.token0 || selector === SELECTORS.token1))
      return ok(word(tokensOf(pair)[selector === SELECTORS.token0 ? 0 : 1]));
    if (TOKENS.includes(target)) {
      if (selector === SELECTORS.decimals) return ok(word(18n));
      if (selector === SELECTORS.name || selector === SELECTORS.symbol)
        return ok(encodeAbiParameters([{ type: "string" }], [`T${target.slice(-2)}`]));
    }
    return { success: false, returnData: "0x" as Hex };
  };
  const rpc = fakeChainRpc((requests) => ({
    kind: "answers",
    answers: requests.map((request) => {
      if (request.method === "eth_getLogs") {
        const filter = request.params[0] as { fromBlock: string; toBlock: string };
        const from = Number.parseInt(filter.fromBlock, 16);
        const to = Number.parseInt(filter.toBlock, 16);
        ranges.push([from, to]);
        if (failLogs > 0) {
          failLogs--;
          return {
            ok: false as const,
            fault: { reason: "Rejected" as const, detail: "the test node refuses" },
          };
        }
        return {
          ok: true as const,
          result: (options.logs ?? []).filter((log) => {
            const n = Number.parseInt(log.blockNumber, 16);
            return n >= from && n <= to;
          }),
        };
      }
      if (request.method !== "eth_call") throw new Error(`unexpected ${request.method}`);
      const { data } = (request.params as Array<{ data: Hex }>)[0]!;
      const calls = decodeFunctionData({ abi: multicall, data }).args[0];
      aggregates.push({ selector: calls[0]!.callData.slice(0, 10), calls: calls.length });
      const results = calls.map((call) => answer(call.target.toLowerCase(), call.callData));
      return {
        ok: true as const,
        result: encodeAbiParameters(
          [{ type: "tuple[]", components: [{ type: "bool" }, { type: "bytes" }] }],
          [results.map((r) => [r.success, r.returnData] as const)],
        ),
      };
    }),
  }));
  const health = rpc.endpoints[0]!.health;
  health.capabilities = { logsFrom: options.logsFrom, probedAt: 1 };
  health.observeHead(options.head, Date.now());
  return {
    rpc,
    aggregates,
    ranges,
    failLogs: (n: number) => {
      failLogs = n;
    },
  };
};

/** A factory's `PairCreated` of pair `i` (the count after it is i + 1) in block `block`. */
const pairCreated = (i: number, block: number): RpcLog => {
  const [token0, token1] = tokensOf(i);
  const topic = (a: string) => `0x${a.slice(2).padStart(64, "0")}`;
  return {
    transactionHash: `0x${"11".repeat(32)}`,
    transactionIndex: "0x0",
    logIndex: "0x0",
    blockNumber: `0x${block.toString(16)}`,
    blockHash: `0x${"22".repeat(32)}`,
    address: FACTORY,
    topics: [EVENT_TOPICS.v2PairCreated, topic(token0), topic(token1)],
    data: `0x${pairAt(i).slice(2).padStart(64, "0")}${(i + 1).toString(16).padStart(64, "0")}`,
  };
};

const backfillOf = (db: Db, node: ReturnType<typeof fakeNode>, deps: Partial<RegistryBackfillDeps> = {}) =>
  makeRegistryBackfill({
    db,
    cache: undefined,
    rpc: () => node.rpc,
    indexedFrom: () => 2_000,
    now: () => Date.now(),
    settings: { waitMs: 5, retryMs: 5, pairsPerCall: 500 },
    ...deps,
  });

const poolsIn = async (db: Db) => {
  const out: Array<IndexedPool> = [];
  for await (const value of db.values({ gte: "idx!pool!", lt: "idx!pool!~" })) out.push(value as IndexedPool);
  return out;
};

describe("the registry backfill's V2 listing", () => {
  it("default: where the node keeps no logs, every pair of a V2 factory is listed through allPairs, hundreds per aggregate3, into the indexer's pool records", async () => {
    const node = fakeNode({ count: 1_234, logsFrom: 1_500, head: 2_100 });
    const db = memoryDb();
    const backfill = backfillOf(db, node);
    backfill.start(chain);
    await backfill.done(1);
    const progress = backfill.progress(1)!;
    expect(progress).toMatchObject({
      from: 1_500,
      to: 1_999,
      next: 2_000,
      done: true,
      pairs: { listed: 1_234, of: 1_234 },
      unavailable: { from: 0, to: 1_499 },
    });
    const pools = await poolsIn(db);
    expect(pools).toHaveLength(1_234);
    const [token0, token1] = tokensOf(7);
    expect(await db.get(poolKey(1, pairAt(7)))).toEqual({
      pool: pairAt(7),
      kind: "v2",
      protocol: "UniswapV2",
      factory: FACTORY,
      token0,
      token1,
      fee: null,
      tick_spacing: null,
      hooks: null,
      // A listing cannot tell when a pair was created: the head it was listed at stands for it.
      created_block: 2_100,
    });
    expect(await db.get(tokenPoolKey(1, token1, pairAt(7)))).toBe(pairAt(7));
    for (const token of TOKENS)
      expect(await db.get(tokenMetadataKey(1, token))).toEqual({
        name: `T${token.slice(-2)}`,
        symbol: `T${token.slice(-2)}`,
        decimals: 18,
      });
    // One allPairsLength, then per 500 pairs one aggregate3 of allPairs and one of their tokens, and
    // one metadata read of the three tokens.
    const bySelector = (selector: string) =>
      node.aggregates.filter((a) => a.selector === selector).map((a) => a.calls);
    expect(bySelector(SELECTORS.allPairsLength)).toEqual([1]);
    expect(bySelector(SELECTORS.allPairs)).toEqual([500, 500, 234]);
    expect(bySelector(SELECTORS.token0)).toEqual([1_000, 1_000, 468]);
    expect(bySelector(SELECTORS.name)).toEqual([9]);
  });

  it("behavior: only pairs older than the first PairCreated the logs show are listed; the logs give the rest with their blocks", async () => {
    // Pairs 0..99 predate the node's logs; 100..119 were created in blocks the node keeps.
    const logs = Array.from({ length: 20 }, (_, k) => pairCreated(100 + k, 1_600 + 10 * k));
    const node = fakeNode({ count: 120, logsFrom: 1_500, head: 2_100, logs });
    const db = memoryDb();
    const backfill = backfillOf(db, node);
    backfill.start(chain);
    await backfill.done(1);
    expect(backfill.progress(1)).toMatchObject({ done: true, logs: 20, pairs: { listed: 100, of: 100 } });
    expect(node.aggregates.filter((a) => a.selector === SELECTORS.allPairs).map((a) => a.calls)).toEqual([
      100,
    ]);
    const pools = await poolsIn(db);
    expect(pools).toHaveLength(120);
    expect((await db.get(poolKey(1, pairAt(105)))) as IndexedPool).toMatchObject({ created_block: 1_650 });
    expect((await db.get(poolKey(1, pairAt(5)))) as IndexedPool).toMatchObject({ created_block: 2_100 });
  });

  it("behavior: a pair the index already holds keeps its record", async () => {
    const node = fakeNode({ count: 3, logsFrom: 1_500, head: 2_100 });
    const db = memoryDb();
    const indexed = { pool: pairAt(1), created_block: 42 };
    await db.put(poolKey(1, pairAt(1)), indexed);
    const backfill = backfillOf(db, node);
    backfill.start(chain);
    await backfill.done(1);
    expect(await db.get(poolKey(1, pairAt(1)))).toEqual(indexed);
    expect(await poolsIn(db)).toHaveLength(3);
  });
});

describe("the registry backfill's runs", () => {
  it("behavior: a refused read is tried again later, with the failure shown meanwhile, and the backfill ends", async () => {
    const node = fakeNode({ count: 0, logsFrom: 0, head: 2_100, logs: [pairCreated(0, 10)] });
    node.failLogs(3);
    const db = memoryDb();
    const backfill = backfillOf(db, node, { settings: { waitMs: 5, retryMs: 20, maxRetryMs: 40 } });
    backfill.start(chain);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const failing = backfill.progress(1)!;
    expect(failing.done).toBe(false);
    expect(failing.error).toMatch(/the test node refuses/);
    expect(failing.retry_at).toBeGreaterThan(0);
    await backfill.done(1);
    const progress = backfill.progress(1)!;
    expect(progress).toMatchObject({ done: true, logs: 1 });
    expect(progress.error).toBeUndefined();
    expect(await db.get(poolKey(1, pairAt(0)))).toMatchObject({ created_block: 10 });
  });

  it("behavior: it waits while where the index starts is unknown, then reads; the record says done, and a second start reads nothing", async () => {
    const node = fakeNode({ count: 0, logsFrom: 0, head: 2_100, logs: [pairCreated(0, 10)] });
    const db = memoryDb();
    let indexedFrom: number | undefined;
    const backfill = backfillOf(db, node, { indexedFrom: () => indexedFrom });
    backfill.start(chain);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(backfill.progress(1)).toMatchObject({ done: false, waiting: expect.stringMatching(/not known/) });
    expect(node.ranges).toEqual([]);
    indexedFrom = 2_000;
    await backfill.done(1);
    expect(await db.get(backfillRecordKey(1))).toMatchObject({ next: 2_000, done: true });
    const asked = node.ranges.length;
    const again = backfillOf(db, node, { indexedFrom: () => 2_000 });
    again.start(chain);
    await again.done(1);
    expect(again.progress(1)).toMatchObject({ done: true, next: 2_000 });
    expect(node.ranges.length).toBe(asked);
  });

  it("behavior: an index holding the whole history needs nothing; stop settles a waiting backfill", async () => {
    const node = fakeNode({ count: 5, logsFrom: 0, head: 2_100 });
    const whole = backfillOf(memoryDb(), node, { indexedFrom: () => 0 });
    whole.start(chain);
    await whole.done(1);
    expect(whole.progress(1)).toMatchObject({ done: true });
    expect(node.ranges).toEqual([]);

    const waiting = backfillOf(memoryDb(), node, { indexedFrom: () => undefined });
    waiting.start(chain);
    await waiting.stop();
    await waiting.done(1);
    expect(waiting.progress(1)!.done).toBe(false);
  });
});
