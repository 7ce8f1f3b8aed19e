import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeHistoricalPrices } from "../../../src/balances/historicalPrices.js";
import { readPastPrices } from "../../../src/balances/pastPrices.js";
import {
  type BlockAtTime,
  type Header,
  type HeaderSource,
  SECANT_ROUNDS,
  searchBlockAtTime,
} from "../../../src/chains/blockAtTime.js";
import { makeBlockTimeFinder } from "../../../src/chains/blockTimeFinder.js";
import { FinalHeaders } from "../../../src/chains/finalHeaders.js";
import { nodeHeaders } from "../../../src/chains/nodeHeaders.js";
import type { RpcAnswer } from "../../../src/chains/rpc/jsonRpcExchange.js";
import type { IndexReader } from "../../../src/indexer/IndexReader.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { fakeChainRpc } from "../../support/chainRpc.js";

/** A deterministic PRNG (mulberry32), so a failing chain is the same chain on the next run. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
};

/** Timestamps of `length` blocks from `start`, each `step(n)` seconds after the one before. */
const chainOf = (length: number, start: number, step: (n: number) => number): Float64Array => {
  const times = new Float64Array(length);
  times[0] = start;
  for (let n = 1; n < length; n++) times[n] = times[n - 1]! + step(n);
  return times;
};

/** The answer by brute force (a plain binary search over every timestamp). */
const oracle = (times: Float64Array, time: number): number | undefined => {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid]! <= time) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? undefined : lo - 1;
};

/**
 * A node over `times`: its head is the last block; blocks below `prunedBelow` and above the head
 * come back null. Counts what it is asked.
 */
const fakeNode = (times: Float64Array, options: { prunedBelow?: number } = {}) => {
  const counts = { rounds: 0, headers: 0 };
  const head = times.length - 1;
  const source: HeaderSource = {
    headers: async (refs) => {
      counts.rounds++;
      counts.headers += refs.length;
      return refs.map((ref) => {
        const n = ref === "latest" ? head : ref;
        if (n > head || n < (options.prunedBelow ?? 0)) return null;
        return { number: n, timestamp: times[n]! };
      });
    },
  };
  return { source, counts };
};

const expectExact = (answer: BlockAtTime, times: Float64Array, time: number) => {
  const want = oracle(times, time);
  if (want === undefined) expect(answer).toEqual({ kind: "beforeGenesis", genesisTimestamp: times[0] });
  else
    expect(answer).toEqual({
      kind: "block",
      number: want,
      timestamp: times[want],
      isHead: want === times.length - 1 && time >= times[want]!,
    });
};

/** Rounds and headers one search may take at most on a chain of `blocks` (see blockAtTime.ts). */
const bound = (blocks: number) => {
  const rounds = 1 + SECANT_ROUNDS + Math.ceil(Math.log2(blocks));
  return { rounds, headers: 2 + 3 * (rounds - 1) + 1 };
};

const GENESIS = 1_700_000_000;

const chains = {
  /** 12 s slots with 1 % missed (Ethereum since the merge). */
  slots: chainOf(
    200_000,
    GENESIS,
    (
      (r) => () =>
        r() < 0.01 ? 24 : 12
    )(random(1)),
  ),
  /** 200 ms blocks: five to a second share one timestamp. */
  dense: chainOf(200_000, GENESIS, (n) => (n % 5 === 0 ? 1 : 0)),
  /** Runs of 1 to 9 blocks sharing a second, then a jump of 1 to 3 s. */
  runs: chainOf(
    200_000,
    GENESIS,
    (
      (r) => () =>
        r() < 0.8 ? 0 : 1 + Math.floor(r() * 3)
    )(random(2)),
  ),
  /** Block times from 1 s to 10 min, a halt of 3 days, and a genesis stamped 0 (Ethereum's). */
  irregular: (() => {
    const r = random(3);
    const times = chainOf(200_000, 0, (n) =>
      n === 1
        ? GENESIS
        : n === 120_000
          ? 3 * 86_400
          : r() < 0.05
            ? 1 + Math.floor(r() * 600)
            : 1 + Math.floor(r() * 20),
    );
    return times;
  })(),
};

/**
 * Median rounds and headers of a search on each chain (measured: 3/6, 4/8, 7/15, 8/18). Bisection
 * alone takes 18 rounds of one header on 200,000 blocks.
 */
const TYPICAL: Record<string, { rounds: number; headers: number }> = {
  slots: { rounds: 3, headers: 8 },
  dense: { rounds: 4, headers: 8 },
  runs: { rounds: 8, headers: 18 },
  irregular: { rounds: 9, headers: 20 },
};

describe("the block at a time, from node headers only", () => {
  for (const [name, times] of Object.entries(chains)) {
    it(`behavior: exact on the ${name} chain for 2,000 times from before genesis to after the head, within the bound`, async () => {
      const r = random(name.length);
      const first = times[0]!;
      const last = times[times.length - 1]!;
      const max = bound(times.length);
      const samples: Array<number> = [first - 1, first, last - 1, last, last + 1_000];
      for (let i = 0; i < 1_000; i++) samples.push(Math.floor(first + r() * (last - first)));
      // Exactly on block timestamps and one second before them: the edges of every answer.
      for (let i = 0; i < 500; i++) {
        const n = Math.floor(r() * times.length);
        samples.push(times[n]!, times[n]! - 1);
      }
      const headers: Array<number> = [];
      const rounds: Array<number> = [];
      for (const time of samples) {
        const node = fakeNode(times);
        const { answer } = await searchBlockAtTime(node.source, time);
        expectExact(answer, times, time);
        expect(node.counts.rounds).toBeLessThanOrEqual(max.rounds);
        expect(node.counts.headers).toBeLessThanOrEqual(max.headers);
        headers.push(node.counts.headers);
        rounds.push(node.counts.rounds);
      }
      const median = (list: Array<number>) => list.sort((a, b) => a - b)[list.length >> 1];
      // Far under the bound: the guesses do the work.
      expect(median(rounds)).toBeLessThanOrEqual(TYPICAL[name]!.rounds);
      expect(median(headers)).toBeLessThanOrEqual(TYPICAL[name]!.headers);
    });
  }

  it("behavior: the LAST of the blocks sharing a timestamp, on any chain (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: -3, max: 250 }),
        async (steps, offset) => {
          const times = chainOf(steps.length, 1_000, (n) => steps[n]!);
          const node = fakeNode(times);
          const { answer } = await searchBlockAtTime(node.source, 1_000 + offset);
          expectExact(answer, times, 1_000 + offset);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it("behavior: genesis and head: before block 0 nothing, at block 0 the last block of its second, at or after the head the head", async () => {
    const times = chainOf(10, 100, (n) => (n < 3 ? 0 : 10));
    const at = async (time: number) => (await searchBlockAtTime(fakeNode(times).source, time)).answer;
    expect(await at(99)).toEqual({ kind: "beforeGenesis", genesisTimestamp: 100 });
    expect(await at(100)).toEqual({ kind: "block", number: 2, timestamp: 100, isHead: false });
    expect(await at(170)).toEqual({ kind: "block", number: 9, timestamp: 170, isHead: true });
    expect(await at(10_000)).toEqual({ kind: "block", number: 9, timestamp: 170, isHead: true });
    // A chain of one block.
    const one = new Float64Array([500]);
    expect((await searchBlockAtTime(fakeNode(one).source, 499)).answer.kind).toBe("beforeGenesis");
    expect((await searchBlockAtTime(fakeNode(one).source, 500)).answer).toMatchObject({
      number: 0,
      isHead: true,
    });
  });

  it("behavior: a time in a gap of days is the block before the gap", async () => {
    const times = chainOf(1_000, GENESIS, (n) => (n === 500 ? 5 * 86_400 : 2));
    for (const time of [times[499]!, times[499]! + 1, times[499]! + 86_400, times[500]! - 1]) {
      const { answer } = await searchBlockAtTime(fakeNode(times).source, time);
      expect(answer).toMatchObject({ kind: "block", number: 499 });
    }
    expect((await searchBlockAtTime(fakeNode(times).source, times[500]!)).answer).toMatchObject({
      number: 500,
    });
  });

  it("error: headers a pruned node does not serve give `unserved`, not a crash, and answers above them stay exact", async () => {
    const times = chains.slots;
    const prunedBelow = 150_000;
    for (const time of [times[10]!, times[149_999]!, times[150_000]! - 1]) {
      const node = fakeNode(times, { prunedBelow });
      const { answer } = await searchBlockAtTime(node.source, time);
      expect(answer.kind).toBe("unserved");
      // The block named is one the node refused, at or above where the answer lies.
      if (answer.kind === "unserved") {
        expect(answer.block).toBeLessThan(prunedBelow);
        expect(answer.block).toBeGreaterThanOrEqual(oracle(times, time)!);
      }
      expect(node.counts.rounds).toBeLessThanOrEqual(bound(times.length).rounds);
    }
    for (const time of [times[150_000]!, times[150_001]! - 1, times[170_000]! + 5]) {
      const { answer } = await searchBlockAtTime(fakeNode(times, { prunedBelow }).source, time);
      expectExact(answer, times, time);
    }
  });

  it("behavior: a seed of known headers around the time is used: no head read, fewer headers", async () => {
    const times = chains.slots;
    const time = times[100_000]! + 5;
    const below: Header = { number: 99_000, timestamp: times[99_000]! };
    const above: Header = { number: 101_000, timestamp: times[101_000]! };
    const node = fakeNode(times);
    const outcome = await searchBlockAtTime(node.source, time, { below, above });
    expectExact(outcome.answer, times, time);
    expect(outcome.head).toBeUndefined();
    expect(node.counts.headers).toBeLessThanOrEqual(6);
  });
});

describe("the finder's cache of final headers", () => {
  const times = chains.slots;
  const head = times.length - 1;

  it("behavior: a second lookup of a time, or of one a few seconds later in the same block, asks nothing; hits and misses are counted", async () => {
    const finder = makeBlockTimeFinder();
    const node = fakeNode(times);
    const time = times[100_000]! + 1;
    expectExact(await finder.find(1, node.source, time, 64), times, time);
    const asked = node.counts.headers;
    expect(asked).toBeGreaterThan(0);
    expectExact(await finder.find(1, node.source, time, 64), times, time);
    expectExact(await finder.find(1, node.source, time + 10, 64), times, time + 10);
    expect(node.counts.headers).toBe(asked);
    expect(finder.lookups()).toEqual({ hits: 2, misses: 1 });
    // A minute on: a search again, but from the cached headers around it (no head read).
    const later = time + 60;
    const before = node.counts.headers;
    expectExact(await finder.find(1, node.source, later, 64), times, later);
    expect(node.counts.headers - before).toBeLessThanOrEqual(4);
    // Another chain has its own headers.
    const other = fakeNode(chains.dense);
    expectExact(await finder.find(2, other.source, time, 64), chains.dense, time);
    expect(other.counts.headers).toBeGreaterThan(0);
  });

  it("behavior: answers at the head or within the finality depth are never kept; before genesis is", async () => {
    const finder = makeBlockTimeFinder();
    const node = fakeNode(times);
    const nearHead = times[head - 10]!;
    await finder.find(1, node.source, nearHead, 64);
    const asked = node.counts.headers;
    expectExact(await finder.find(1, node.source, nearHead, 64), times, nearHead);
    expect(node.counts.headers).toBeGreaterThan(asked);
    await finder.find(1, node.source, times[head]! + 100, 64);
    const atHead = node.counts.headers;
    await finder.find(1, node.source, times[head]! + 100, 64);
    expect(node.counts.headers).toBeGreaterThan(atHead);
    expect((await finder.find(1, node.source, times[0]! - 1, 64)).kind).toBe("beforeGenesis");
    const genesis = node.counts.headers;
    expect((await finder.find(1, node.source, times[0]! - 50, 64)).kind).toBe("beforeGenesis");
    expect(node.counts.headers).toBe(genesis);
  });

  it("behavior: a finder with a small cache stays exact over 3,000 lookups", async () => {
    const finder = makeBlockTimeFinder(64);
    const node = fakeNode(times);
    const r = random(9);
    for (let i = 0; i < 3_000; i++) {
      const time = Math.floor(times[0]! + r() * (times[head]! - times[0]!));
      expectExact(await finder.find(1, node.source, time, 64), times, time);
    }
    const { hits, misses } = finder.lookups();
    expect(hits + misses).toBe(3_000);
  });

  it("bytes: the headers kept stay within capacity, and what is kept still brackets times right", () => {
    const kept = new FinalHeaders(100);
    const r = random(10);
    for (let i = 0; i < 10_000; i++) {
      const n = Math.floor(r() * times.length);
      kept.add({ number: n, timestamp: times[n]! });
      expect(kept.size).toBeLessThanOrEqual(100);
    }
    for (let i = 0; i < 1_000; i++) {
      const time = Math.floor(times[0]! + r() * (times[head]! - times[0]!));
      const { below, above } = kept.around(time);
      if (below !== undefined) expect(below.timestamp).toBeLessThanOrEqual(time);
      if (above !== undefined) expect(above.timestamp).toBeGreaterThan(time);
      if (below !== undefined && above !== undefined) expect(above.number).toBeGreaterThan(below.number);
    }
    kept.add({ number: 10, timestamp: times[10]! });
    kept.add({ number: 11, timestamp: times[11]! });
    expect(kept.around(times[10]!)).toEqual({
      below: { number: 10, timestamp: times[10] },
      above: { number: 11, timestamp: times[11] },
    });
  });

  it("behavior: identical concurrent lookups share one search", async () => {
    const finder = makeBlockTimeFinder();
    const node = fakeNode(times);
    const time = times[50_000]! + 3;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => finder.find(1, node.source, time, 64)),
    );
    for (const answer of answers) expectExact(answer, times, time);
    expect(finder.lookups()).toEqual({ hits: 19, misses: 1 });
    const single = fakeNode(times);
    await searchBlockAtTime(single.source, time);
    expect(node.counts.headers).toBe(single.counts.headers);
  });
});

/** A JSON-RPC node over `times` for the service's RPC layer: pruned headers refused in reth's words. */
const rpcNode = (times: Float64Array, options: { prunedBelow?: number; nullBelow?: number } = {}) => {
  const head = times.length - 1;
  let calls = 0;
  const rpc = fakeChainRpc((requests) => ({
    kind: "answers",
    answers: requests.map((request): RpcAnswer => {
      calls++;
      if (request.method !== "eth_getBlockByNumber") throw new Error(`unexpected ${request.method}`);
      const ref = request.params[0] as string;
      const n = ref === "latest" ? head : Number.parseInt(ref, 16);
      if (n < (options.prunedBelow ?? 0))
        return {
          ok: false,
          fault: {
            reason: "HistoryUnavailable",
            detail: `pruned history unavailable: earliest available ${options.prunedBelow}`,
          },
        };
      if (n > head || n < (options.nullBelow ?? 0)) return { ok: true, result: null };
      return {
        ok: true,
        result: {
          number: `0x${n.toString(16)}`,
          hash: "0x",
          parentHash: "0x",
          timestamp: `0x${times[n]!.toString(16)}`,
        },
      };
    }),
  }));
  return { rpc, calls: () => calls };
};

describe("node headers through the RPC layer", () => {
  const times = chains.slots;

  it("behavior: exact answers from eth_getBlockByNumber batches", async () => {
    const node = rpcNode(times);
    for (const n of [0, 1, 77_777, 199_998]) {
      const time = times[n]! + 1;
      expectExact((await searchBlockAtTime(nodeHeaders(node.rpc), time)).answer, times, time);
    }
  });

  it("error: blocks a node refuses as pruned, or answers null for, are `unserved`; the others of the batch still count", async () => {
    for (const pruned of [{ prunedBelow: 100_000 }, { nullBelow: 100_000 }]) {
      const node = rpcNode(times, pruned);
      const old = (await searchBlockAtTime(nodeHeaders(node.rpc), times[50_000]!)).answer;
      expect(old.kind).toBe("unserved");
      const time = times[150_000]! + 1;
      expectExact((await searchBlockAtTime(nodeHeaders(node.rpc), time)).answer, times, time);
    }
  });
});

/** An index holding the block times of blocks `from`..`to` of `times` only. */
const indexOf = (times: Float64Array, from: number, to: number): IndexReader =>
  ({
    blockAtOrBefore: async (_chainId: number, seconds: number) => {
      const n = oracle(times.subarray(0, to + 1), seconds);
      return n === undefined || n < from ? undefined : n;
    },
    blockTime: async (_chainId: number, n: number) => (n >= from && n <= to ? times[n] : undefined),
  }) as unknown as IndexReader;

describe("historical prices at times before the index starts", () => {
  const chain = testChainConfig({ chain_id: 1, name: "ethereum" });
  const times = chains.slots;
  const head = times.length - 1;
  const now = times[head]! + 6;

  it("behavior: the index answers what it covers with no call; older times come from node headers, exactly", async () => {
    const node = rpcNode(times);
    const history = makeHistoricalPrices(indexOf(times, head - 1_000, head), () => node.rpc, 1 << 20);
    const recent = await history.blockHoursAgo(chain, now, 1);
    expect(recent).toBe(oracle(times, now - 3_600));
    expect(node.calls()).toBe(0);
    for (const hours of [24, 168, 400])
      expect(await history.blockHoursAgo(chain, now, hours)).toBe(oracle(times, now - hours * 3_600));
    expect(node.calls()).toBeGreaterThan(0);
  });

  it("behavior: a time past the index's last block (an index behind the chain) is not its last block, but the node's answer", async () => {
    const node = rpcNode(times);
    const behind = makeHistoricalPrices(indexOf(times, head - 3_000, head - 2_000), () => node.rpc, 1 << 20);
    const time = times[head - 1_000]! + 1;
    expect(await behind.blockHoursAgo(chain, time + 3_600, 1)).toBe(head - 1_000);
    // Without a node, the index's best is all there is (as before).
    const alone = makeHistoricalPrices(indexOf(times, head - 3_000, head - 2_000), () => undefined, 1 << 20);
    expect(await alone.blockHoursAgo(chain, time + 3_600, 1)).toBe(head - 2_000);
    expect(await alone.blockHoursAgo(chain, times[head - 4_000]! + 3_600, 1)).toBeUndefined();
  });

  it("behavior: a time that now resolves is priced; before genesis and pruned headers are gaps that say why", async () => {
    const node = rpcNode(times, { prunedBelow: 100_000 });
    const history = makeHistoricalPrices(indexOf(times, head - 1_000, head), () => node.rpc, 1 << 20);
    const priced = {
      ...history,
      at: async (_chain: unknown, block: number, tokens: ReadonlyArray<string>) =>
        new Map(tokens.map((t) => [t, { priceUsd: block } as never])),
    };
    const ageOf = (n: number) => Math.ceil((now - times[n]!) / 3_600);
    const hours = [24, ageOf(50_000)];
    const past = await readPastPrices(priced, [{ chain, tokens: ["0xaa"] }], hours, {
      nowSeconds: now,
      stateFrom: () => undefined,
    });
    expect(past.byToken.get("1|0xaa")).toEqual([
      { offset_hours: 24, price_usd: oracle(times, now - 86_400) },
    ]);
    expect(past.gaps.map((g) => [g.hours, g.why])).toEqual([
      [
        hours[1],
        expect.stringMatching(
          /^its RPC nodes serve no block header at or below block \d+, where that time falls$/,
        ),
      ],
    ]);
    // Before block 0, on a node that serves block 0.
    const full = makeHistoricalPrices(indexOf(times, head - 1_000, head), () => rpcNode(times).rpc, 1 << 20);
    const genesisAge = Math.ceil((now - times[0]!) / 3_600) + 24;
    const older = await readPastPrices(
      { ...full, at: priced.at },
      [{ chain, tokens: ["0xaa"] }],
      [genesisAge],
      {
        nowSeconds: now,
        stateFrom: () => undefined,
      },
    );
    expect(older.gaps.map((g) => [g.hours, g.why])).toEqual([
      [genesisAge, expect.stringMatching(/^the chain has no block that old \(its first block is from 2023-/)],
    ]);
  });

  it("error: a node that fails is a gap with the reason, not an error", async () => {
    const rpc = fakeChainRpc(() => ({ kind: "fault", fault: { reason: "Rejected", detail: "boom" } }));
    const history = makeHistoricalPrices(indexOf(times, head - 10, head), () => rpc, 1 << 20);
    const past = await readPastPrices(history, [{ chain, tokens: ["0xaa"] }], [24], {
      nowSeconds: now,
      stateFrom: () => undefined,
    });
    expect(past.gaps.map((g) => g.why)).toEqual([
      expect.stringMatching(/^finding the block of that time failed: .*boom/),
    ]);
  });
});
