import { MemoryLevel } from "memory-level";
import { encodeAbiParameters, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { matchesFilter } from "../../../src/chains/rpc/getLogs.js";
import type { RpcAnswer } from "../../../src/chains/rpc/jsonRpcExchange.js";
import type { RpcLog } from "../../../src/chains/rpc/RpcTypes.js";
import { discoveryRecordKey } from "../../../src/discovery/DiscoveryRecord.js";
import { discoveryWarnings } from "../../../src/discovery/discoveryWarnings.js";
import { makeScanBatches, ScanLineFull, type SettleScan } from "../../../src/discovery/scanBatches.js";
import { DISCOVERY_DEFAULTS } from "../../../src/discovery/WalletDiscovery.js";
import { walletTokenPrefix } from "../../../src/indexer/indexKeys.js";
import type { Db } from "../../../src/storage/Level.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { fakeChainRpc } from "../../support/chainRpc.js";
import { discoveryOverNode, UNPACED } from "../../support/walletDiscoveryFixture.js";

const TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const word = (value: string) => `0x${value.slice(2).padStart(64, "0")}`;
const wallet = (n: number) => `0x${(0xe000 + n).toString(16).padStart(40, "0")}`;
const tokenOf = (n: number) => `0x${(0xa000 + n).toString(16).padStart(40, "0")}`;
const chain = testChainConfig();

/** Waits until `done` holds (for 5 s at most). */
const until = async (done: () => boolean) => {
  for (let i = 0; i < 5_000 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 1));
  if (!done()) throw new Error("never happened");
};

/**
 * Batches of string entries over one slot, the first held until `release`; `batches` lists what
 * each batch took, and `then` runs in each after the first is let go.
 */
const heldFirstBatch = (
  limits: { readonly batchMax: number; readonly boundedMax?: number },
  then: (entries: ReadonlyArray<string>, settle: SettleScan<string>) => void = () => undefined,
) => {
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const batches: Array<ReadonlyArray<string>> = [];
  const scans = makeScanBatches<string>({
    keyOf: (entry) => entry,
    slots: 1,
    ...limits,
    scan: async (_chainId, entries, settle) => {
      batches.push(entries);
      if (batches.length === 1) await gate;
      then(entries, settle);
    },
  });
  return { scans, batches, release: () => release() };
};

describe("batches of log scans", () => {
  it("behavior: wallets queued while every slot is busy go in one batch when a slot frees, and each batch settles its own wallets", async () => {
    const { scans, batches, release } = heldFirstBatch({ batchMax: 3 }, (entries, settle) => {
      // One wallet of the second batch fails alone; the rest settle with the batch.
      if (entries.includes("d")) settle("d", new Error("d failed"));
    });
    const outcome = new Map<string, string>();
    const track = (name: string) =>
      scans.add(1, name).then(
        () => outcome.set(name, "done"),
        (error: Error) => outcome.set(name, error.message),
      );
    const all = ["a", "b", "c", "d", "e", "f"].map(track);
    await until(() => batches.length === 1);
    expect(scans.waiting()).toBe(5);
    expect([scans.isWaiting(1, "a"), scans.isWaiting(1, "b")]).toEqual([false, true]);
    release();
    await Promise.all(all);
    // "a" alone took the free slot; the rest waited, and went three at a time.
    expect(batches).toEqual([["a"], ["b", "c", "d"], ["e", "f"]]);
    expect(Object.fromEntries(outcome)).toEqual({
      a: "done",
      b: "done",
      c: "done",
      d: "d failed",
      e: "done",
      f: "done",
    });
  });

  it("behavior: bounded scans beyond boundedMax are turned away while unbounded ones queue; a wallet already waiting asked again keeps its place, and one asked unbounded frees its bounded place", async () => {
    const { scans, batches, release } = heldFirstBatch({ batchMax: 10, boundedMax: 2 });
    const outcome = new Map<string, string>();
    const track = (name: string, bounded: boolean) =>
      scans.add(1, name, bounded).then(
        () => outcome.set(name, "done"),
        (error: unknown) => outcome.set(name, error instanceof ScanLineFull ? "turned away" : String(error)),
      );
    const asks = [track("running", true)];
    await until(() => batches.length === 1);
    // The running scan does not count: two requests' scans wait, a third is turned away.
    asks.push(track("r1", true), track("r2", true), track("r3", true));
    // A webhook's wallets queue whatever the requests' line holds; one of them asked by a request
    // again, and a request's wallet asked again, keep their places.
    asks.push(track("w1", false), track("w2", false), track("w1", true), track("r1", true));
    await until(() => outcome.has("r3"));
    expect(outcome.get("r3")).toBe("turned away");
    // A request's wallet a webhook then asks for is the webhook's: its place in the line is freed.
    asks.push(track("r2", false), track("r4", true));
    expect(scans.waiting()).toBe(5);
    release();
    await Promise.all(asks);
    expect(batches).toEqual([["running"], ["r1", "r2", "w1", "w2", "r4"]]);
    expect([...outcome].filter(([, o]) => o !== "done")).toEqual([["r3", "turned away"]]);
    // The line has room again.
    await scans.add(1, "r3", true);
    expect(batches.at(-1)).toEqual(["r3"]);
  });

  it("behavior: a batch that throws fails the wallets it had not settled, and the next batch runs", async () => {
    const scans = makeScanBatches<string>({
      keyOf: (entry) => entry,
      slots: 1,
      batchMax: 10,
      scan: async (_chainId, entries, settle) => {
        settle(entries[0]!);
        if (entries.includes("x")) throw new Error("node down");
      },
    });
    const results = await Promise.allSettled([scans.add(1, "w"), scans.add(1, "x"), scans.add(1, "y")]);
    // "w" went alone; "x" and "y" together: "x" settled first, "y" failed with the batch.
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected"]);
    expect(await scans.add(1, "z").then(() => "done")).toBe("done");
  });

  it("behavior: a batch holds one chain's wallets, and chains take the free slot in the order they asked", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const batches: Array<string> = [];
    const scans = makeScanBatches<string>({
      keyOf: (entry) => entry,
      slots: 1,
      batchMax: 10,
      scan: async (chainId, entries) => {
        batches.push(`${chainId}:${entries.join(",")}`);
        if (batches.length === 1) await gate;
      },
    });
    const all = [scans.add(1, "a")];
    await until(() => batches.length === 1);
    all.push(scans.add(8453, "b"), scans.add(1, "c"), scans.add(8453, "d"), scans.add(10, "e"));
    expect([scans.isWaiting(8453, "b"), scans.isWaiting(1, "b")]).toEqual([true, false]);
    release();
    await Promise.all(all);
    expect(batches).toEqual(["1:a", "8453:b,d", "1:c", "10:e"]);
  });

  it("edge: a wallet asked again while it waits is scanned once, as its newer entry, and both callers settle with it", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const batches: Array<ReadonlyArray<{ key: string; job: number }>> = [];
    const scans = makeScanBatches<{ key: string; job: number }>({
      keyOf: (entry) => entry.key,
      slots: 1,
      batchMax: 10,
      scan: async (_chainId, entries, settle) => {
        batches.push(entries);
        if (batches.length === 1) await gate;
        for (const entry of entries)
          if (entry.key === "w") settle(entry, new Error(`w failed in job ${entry.job}`));
      },
    });
    const busy = scans.add(1, { key: "x", job: 0 });
    await until(() => batches.length === 1);
    const older = scans.add(1, { key: "w", job: 1 }).catch((e: Error) => e.message);
    scans.add(1, { key: "v", job: 1 });
    const newer = scans.add(1, { key: "w", job: 2 }).catch((e: Error) => e.message);
    expect(scans.waiting()).toBe(2);
    release();
    expect(await Promise.all([older, newer])).toEqual(["w failed in job 2", "w failed in job 2"]);
    await busy;
    // "w" kept its place ahead of "v", once, with the job that asked last.
    expect(batches[1]).toEqual([
      { key: "w", job: 2 },
      { key: "v", job: 1 },
    ]);
    expect(scans.waiting()).toBe(0);
  });

  it("edge: a wallet asked again while its scan runs is not read beside it: the asks wait for that scan to settle, then go one scan at a time", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const batches: Array<ReadonlyArray<{ key: string; job: number }>> = [];
    let reading = 0;
    let mostAtOnce = 0;
    const scans = makeScanBatches<{ key: string; job: number }>({
      keyOf: (entry) => entry.key,
      slots: 3,
      batchMax: 10,
      scan: async (_chainId, entries) => {
        batches.push(entries);
        reading++;
        mostAtOnce = Math.max(mostAtOnce, reading);
        if (batches.length === 1) await gate;
        else await new Promise((resolve) => setImmediate(resolve));
        reading--;
      },
    });
    const first = scans.add(1, { key: "w", job: 1 });
    await until(() => batches.length === 1);
    // Slots are free, yet the later asks of "w" do not take one while job 1's scan of "w" runs.
    const again = [scans.add(1, { key: "w", job: 2 }), scans.add(1, { key: "w", job: 3 })];
    // Everything queued on the event loop runs before the check.
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toHaveLength(1);
    release();
    await Promise.all([first, ...again]);
    expect(mostAtOnce).toBe(1);
    // The newest ask is the last one read.
    expect(batches.at(-1)).toEqual([{ key: "w", job: 3 }]);
  });
});

/**
 * A node where wallet i received token i at block 150, whose eth_getLogs answers wait while its
 * gate is closed (it starts closed; `open` and `close` it), and which counts them. The sweep's
 * lens finds nothing.
 */
const transfersNode = (count: number) => {
  const logs: Array<RpcLog> = Array.from({ length: count }, (_, i) => ({
    address: tokenOf(i),
    topics: [TRANSFER, word(`0x${"11".repeat(20)}`), word(wallet(i))],
    data: word("0x01"),
    blockNumber: "0x96",
    blockHash: word("0x96"),
    transactionHash: word(`0x${i.toString(16)}`),
    transactionIndex: "0x0",
    logIndex: `0x${i.toString(16)}`,
  }));
  let open = () => {};
  let gate = Promise.resolve();
  const close = () => {
    gate = new Promise<void>((resolve) => {
      open = resolve;
    });
  };
  close();
  const asked = { logs: 0, waiting: 0 };
  const answer = async (method: string, params: ReadonlyArray<unknown>): Promise<RpcAnswer> => {
    if (method === "eth_call") {
      const data = (params[0] as { data: string }).data;
      const tokens = Number.parseInt(data.slice(2 + 8 + 128, 2 + 8 + 192), 16);
      return {
        ok: true,
        result: encodeAbiParameters([{ type: "uint256[]" }], [Array.from({ length: tokens }, () => 0n)]),
      };
    }
    if (method !== "eth_getLogs") return { ok: false, fault: { reason: "Rejected", detail: method } };
    asked.logs++;
    asked.waiting++;
    await gate;
    asked.waiting--;
    const filter = params[0] as { fromBlock: Hex; toBlock: Hex; topics: ReadonlyArray<unknown> };
    const [from, to] = [Number(filter.fromBlock), Number(filter.toBlock)];
    return {
      ok: true,
      result: logs.filter(
        (l) =>
          from <= Number(l.blockNumber) &&
          Number(l.blockNumber) <= to &&
          matchesFilter(l, filter as Parameters<typeof matchesFilter>[1]),
      ),
    };
  };
  const rpc = fakeChainRpc(async (requests) => ({
    kind: "answers",
    answers: await Promise.all(requests.map((request) => answer(request.method, request.params))),
  }));
  return { rpc, asked, open: () => open(), close };
};

const tokensHeld = async (db: Db, who: string) => {
  const out: Array<string> = [];
  for await (const key of db.keys({ gte: walletTokenPrefix(who), lt: `${walletTokenPrefix(who)}~` }))
    out.push((key as string).split("!").at(-1)!);
  return out;
};

/** Discovery over `node` on a chain indexed from block 1,000, one batch of log scans at a time. */
const oneScanAtATime = (db: Db, node: ReturnType<typeof transfersNode>, now: () => number = () => 0) =>
  discoveryOverNode(db, node.rpc, [tokenOf(900)], {
    settings: { ...DISCOVERY_DEFAULTS, scans: 1, scanStretch: 300, prefetchPerSecond: UNPACED },
    now,
  });

describe("a webhook's wallets' log scans", () => {
  it("behavior: the wallets waiting behind a running scan are read together, for the calls one wallet costs, and each holds exactly its own tokens", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const node = transfersNode(41);
    const discovery = oneScanAtATime(db, node);
    // The first wallet's scan takes the only slot and waits on the node...
    expect(discovery.prefetch([chain], [wallet(0)])).toBe(1);
    await until(() => node.asked.waiting > 0);
    const oneWallet = node.asked.waiting;
    // ... while a webhook's 40 more are swept and queue for their scans.
    const others = Array.from({ length: 40 }, (_, i) => wallet(i + 1));
    expect(discovery.prefetch([chain], others)).toBe(40);
    await until(() => discovery.scansQueued() === 40);
    // Operators see one wallet's history being read and 40 waiting for a batch, not 41 scans.
    expect(discovery.stats().get(chain.chain_id)).toMatchObject({ scanning: 1, scan_queued: 40 });
    // Their answers say they wait behind other wallets' scans; the running one's does not.
    const waiting = discovery.progress(chain, others[0]!);
    expect(waiting).toMatchObject({ state: "scanning", scan_queued: true });
    expect(discovery.progress(chain, wallet(0)).scan_queued).toBeUndefined();
    const [warning] = discoveryWarnings([{ chain, progress: waiting }], () => 0, "Balances", "http://svc");
    expect(warning?.message).toMatch(
      /its transfer history waits for its turn to be read, behind other wallets' scans/,
    );
    node.open();
    await until(() => [wallet(0), ...others].every((w) => discovery.progress(chain, w).state === "complete"));
    // 1,000 blocks in stretches of 300: four stretches of four filters, for one wallet and for the 40.
    expect(oneWallet).toBe(4);
    expect(node.asked.logs).toBe(2 * 4 * 4);
    for (const [i, w] of [wallet(0), ...others].entries())
      expect(await tokensHeld(db, w)).toEqual([tokenOf(i)]);
    expect(discovery.progress(chain, others[0]!).scan_queued).toBeUndefined();
    expect(discovery.stats().get(chain.chain_id)).toMatchObject({
      scanning: 0,
      scan_queued: 0,
      complete: 41,
    });
  });

  it("edge: a scan that outlives its failed job saves its progress into the job that replaced it, keeping that job's sweep", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const node = transfersNode(1);
    let finderCalls = 0;
    let now = 0;
    const discovery = discoveryOverNode(db, node.rpc, [tokenOf(900)], {
      now: () => now,
      settings: { ...DISCOVERY_DEFAULTS, scans: 1, scanStretch: 300 },
      finders: {
        chain: [],
        // The first job's position finders fail; the retry's answer.
        wallet: [
          async () => {
            finderCalls++;
            if (finderCalls === 1) throw new Error("finder failed");
            return { ops: [] };
          },
        ],
        nftContracts: () => new Set(),
        nftIds: async () => ({ ops: [] }),
      },
    });
    const w = wallet(0);
    const record = async () =>
      (await db.get(discoveryRecordKey(chain.chain_id, w))) as
        | { swept_block?: number; scan?: { below: number } }
        | undefined;
    // The first job's tokens are stored, its scan waits on the node, and its finders fail.
    await discovery.settle(chain, w, 5_000, "tokens");
    await until(() => node.asked.waiting > 0 && discovery.progress(chain, w).state === "failed");
    // A request tries again (a first sweep whose finders failed, 5 s later): the new job sweeps
    // and saves its sweep.
    now = 5_000;
    await discovery.settle(chain, w, 5_000);
    await until(() => finderCalls === 2);
    await until(() => discovery.progress(chain, w).state !== "sweeping");
    expect((await record())?.swept_block).toBe(1_000);
    // The first job's scan reads one stretch and saves where it got: the sweep is still there.
    node.open();
    node.close();
    // The second stretch's four filters wait on the node: the first stretch is saved.
    await until(() => node.asked.logs === 8 && node.asked.waiting === 4);
    const saved = await record();
    expect(saved?.scan?.below).toBe(700);
    expect(saved?.swept_block).toBe(1_000);
    node.open();
    await until(() => discovery.progress(chain, w).state === "complete");
    expect(await record()).toMatchObject({ swept_block: 1_000, scan: { below: 0 } });
  });

  it("behavior: wallets of one batch that stopped at different blocks are read apart only down to where the lower stopped, then together", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const node = transfersNode(3);
    // Swept before; the first had read its history down to block 700, the second none of it.
    const swept = { swept_block: 1_000, swept_at: 0 };
    await db.put(discoveryRecordKey(chain.chain_id, wallet(0)), {
      ...swept,
      scan: { from: 0, to: 999, below: 700 },
    });
    await db.put(discoveryRecordKey(chain.chain_id, wallet(1)), swept);
    const discovery = oneScanAtATime(db, node);
    // A third wallet's scan takes the only slot while the two queue behind it.
    expect(discovery.prefetch([chain], [wallet(2)])).toBe(1);
    await until(() => node.asked.waiting > 0);
    expect(discovery.prefetch([chain], [wallet(0), wallet(1)])).toBe(2);
    await until(() => discovery.scansQueued() === 2);
    node.open();
    await until(() => [0, 1, 2].every((i) => discovery.progress(chain, wallet(i)).state === "complete"));
    // The third alone: 4 stretches of 300 blocks. The two: 999-700 for the second alone, then
    // 699-0 together in 3 stretches; read group by group, it was 4 + 3 stretches.
    expect(node.asked.logs).toBe(4 * 4 + 4 * 4);
    for (const i of [0, 1, 2]) {
      expect(await tokensHeld(db, wallet(i))).toEqual([tokenOf(i)]);
      expect(await db.get(discoveryRecordKey(chain.chain_id, wallet(i)))).toMatchObject({
        scan: { from: 0, to: 999, below: 0 },
      });
    }
  });

  it("behavior: a log scan waits for a probe to say where the node's logs begin, then reads down to there only", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const node = transfersNode(1);
    const discovery = oneScanAtATime(db, node);
    // Not probed yet: its logs may begin anywhere, and an empty answer would prove nothing.
    node.rpc.endpoints[0]!.health.capabilities = undefined;
    node.open();
    discovery.prefetch([chain], [wallet(0)]);
    await until(() => discovery.progress(chain, wallet(0)).state === "scanning");
    for (let turn = 0; turn < 50; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(node.asked.logs).toBe(0);
    node.rpc.endpoints[0]!.health.capabilities = { logsFrom: 400, probedAt: 0 };
    await until(() => discovery.progress(chain, wallet(0)).state === "complete");
    // Blocks 999-400: two stretches of four filters.
    expect(node.asked.logs).toBe(2 * 4);
  });

  it("behavior: once the node's logs begin later (a window that moved on), a finished scan stays finished and an unfinished one resumes where it got", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const node = transfersNode(2);
    const swept = { swept_block: 1_000, swept_at: 0 };
    // Both read while the node kept every log: the first to the end, the second down to block 700.
    await db.put(discoveryRecordKey(chain.chain_id, wallet(0)), {
      ...swept,
      scan: { from: 0, to: 999, below: 0 },
    });
    await db.put(discoveryRecordKey(chain.chain_id, wallet(1)), {
      ...swept,
      scan: { from: 0, to: 999, below: 700 },
    });
    // The node's logs now begin at block 200.
    node.rpc.endpoints[0]!.health.capabilities = { logsFrom: 200, probedAt: 0 };
    const discovery = oneScanAtATime(db, node);
    node.open();
    discovery.prefetch([chain], [wallet(0), wallet(1)]);
    await until(() => [0, 1].every((i) => discovery.progress(chain, wallet(i)).state === "complete"));
    // Only the second's blocks 699-200 were read: two stretches of four filters.
    expect(node.asked.logs).toBe(2 * 4);
    expect(await db.get(discoveryRecordKey(chain.chain_id, wallet(1)))).toMatchObject({
      scan: { from: 200, to: 999, below: 200 },
    });
  });

  it("edge: a wallet swept again after resweepMs, its history read already, is complete without waiting behind other wallets' scans", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const node = transfersNode(2);
    let now = 0;
    const discovery = oneScanAtATime(db, node, () => now);
    node.open();
    await discovery.settle(chain, wallet(0), 5_000);
    await until(() => discovery.progress(chain, wallet(0)).state === "complete");
    const readBefore = node.asked.logs;
    // Another wallet's scan takes the only slot and waits on the node...
    node.close();
    expect(discovery.prefetch([chain], [wallet(1)])).toBe(1);
    await until(() => node.asked.waiting > 0);
    // ... while the first is swept again: its finished scan has nothing to wait in line for.
    now = DISCOVERY_DEFAULTS.resweepMs;
    await discovery.settle(chain, wallet(0), 5_000);
    await until(() => discovery.progress(chain, wallet(0)).state === "complete");
    expect(discovery.scansQueued()).toBe(0);
    expect(node.asked.waiting).toBeGreaterThan(0);
    node.open();
    await until(() => discovery.progress(chain, wallet(1)).state === "complete");
    // Only the second wallet's history was read: four stretches of four filters.
    expect(node.asked.logs - readBefore).toBe(4 * 4);
    expect(await tokensHeld(db, wallet(1))).toEqual([tokenOf(1)]);
  });
});
