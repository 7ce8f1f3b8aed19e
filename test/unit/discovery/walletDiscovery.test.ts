import { MemoryLevel } from "memory-level";
import { encodeAbiParameters, type Hex } from "viem";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RpcAnswer } from "../../../src/chains/rpc/jsonRpcExchange.js";
import { discoveryRecordKey } from "../../../src/discovery/DiscoveryRecord.js";
import { discoveryCounts } from "../../../src/discovery/discoveryCounts.js";
import { discoveryWarnings } from "../../../src/discovery/discoveryWarnings.js";
import { SWEEP_LENS_ADDRESS } from "../../../src/discovery/lens/sweepLens.js";
import {
  DISCOVERY_DEFAULTS,
  type DiscoveryDeps,
  type Findings,
  type makeWalletDiscovery,
} from "../../../src/discovery/WalletDiscovery.js";
import { IndexedWallets } from "../../../src/indexer/IndexedWallets.js";
import {
  indexCheckpointKey,
  indexedWalletKey,
  tokenMetadataKey,
  vaultProbeKey,
  walletTokenKey,
  walletTokenPrefix,
} from "../../../src/indexer/indexKeys.js";
import type { Db, Operation } from "../../../src/storage/Level.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { fakeChainRpc } from "../../support/chainRpc.js";
import { discoveryOverNode, UNPACED } from "../../support/walletDiscoveryFixture.js";

const chain = testChainConfig();
const WALLET = `0x${"ab".repeat(20)}`;
const SWEPT = `0x${"51".repeat(20)}`;
const SCANNED = `0x${"5c".repeat(20)}`;
const TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const word = (address: string) => `0x${address.slice(2).padStart(64, "0")}`;

/**
 * A node for one wallet: the lens answers a balance of 1 for SWEPT and 0 for the rest; logs
 * hold one transfer of SCANNED to the wallet at block 150; every other call fails (metadata and
 * vault probes of new tokens are then null). `failLogsBelow` makes eth_getLogs refuse ranges
 * starting below it. Every eth_getLogs range asked is recorded.
 */
const walletNode = (
  options: {
    failLogsBelow?: number;
    failSweep?: boolean;
    logsGate?: Promise<void>;
    /** Told the tokens each sweep call asks about. */
    onSweep?: (tokens: ReadonlyArray<string>) => void;
  } = {},
) => {
  const ranges: Array<[number, number]> = [];
  const answer = (method: string, params: ReadonlyArray<unknown>): RpcAnswer => {
    if (method === "eth_call") {
      const call = params[0] as { to: string; data: string };
      if (call.to !== SWEEP_LENS_ADDRESS || options.failSweep === true)
        return { ok: false, fault: { reason: "Rejected", detail: "execution reverted" } };
      const count = Number.parseInt(call.data.slice(2 + 8 + 128, 2 + 8 + 192), 16);
      const tokens = Array.from(
        { length: count },
        (_, i) => `0x${call.data.slice(2 + 8 + 192 + i * 64 + 24, 2 + 8 + 192 + (i + 1) * 64)}`,
      );
      options.onSweep?.(tokens);
      return {
        ok: true,
        result: encodeAbiParameters(
          [{ type: "uint256[]" }],
          [tokens.map((token) => (token === SWEPT ? 1n : 0n))],
        ),
      };
    }
    if (method === "eth_getLogs") {
      const filter = params[0] as { fromBlock: Hex; toBlock: Hex; topics: ReadonlyArray<unknown> };
      const from = Number(filter.fromBlock);
      const to = Number(filter.toBlock);
      ranges.push([from, to]);
      if (options.failLogsBelow !== undefined && from < options.failLogsBelow)
        return { ok: false, fault: { reason: "Rejected", detail: "no" } };
      const receiving = filter.topics[0] === TRANSFER && filter.topics[1] === null;
      return {
        ok: true,
        result:
          receiving && from <= 150 && 150 <= to
            ? [
                {
                  address: SCANNED,
                  topics: [TRANSFER, word(`0x${"11".repeat(20)}`), word(WALLET)],
                  data: word("0x01"),
                  blockNumber: "0x96",
                  blockHash: `0x${"00".repeat(32)}`,
                  transactionHash: `0x${"00".repeat(32)}`,
                  transactionIndex: "0x0",
                  logIndex: "0x0",
                },
              ]
            : [],
      };
    }
    return { ok: false, fault: { reason: "Rejected", detail: `unexpected ${method}` } };
  };
  const rpc = fakeChainRpc(async (requests) => {
    if (options.logsGate !== undefined && requests.some((r) => r.method === "eth_getLogs"))
      await options.logsGate;
    return { kind: "answers", answers: requests.map((request) => answer(request.method, request.params)) };
  });
  // Probed: it keeps every log.
  rpc.endpoints[0]!.health.capabilities = { logsFrom: 0, probedAt: 0 };
  return { rpc, ranges };
};

const discoveryOver = (db: Db, node: ReturnType<typeof walletNode>, overrides: Partial<DiscoveryDeps> = {}) =>
  discoveryOverNode(db, node.rpc, [SWEPT, `0x${"99".repeat(20)}`], overrides);

const walletTokens = async (db: Db) => {
  const out: Array<string> = [];
  for await (const key of db.keys({ gte: walletTokenPrefix(WALLET), lt: `${walletTokenPrefix(WALLET)}~` }))
    out.push((key as string).split("!").at(-1)!);
  return out.sort();
};

const settled = async (discovery: ReturnType<typeof makeWalletDiscovery>) => {
  for (let i = 0; i < 200; i++) {
    const state = discovery.progress(chain, WALLET).state;
    if (state !== "sweeping" && state !== "scanning" && state !== "not_started") return state;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error("discovery did not settle");
};

/** Turns of the event loop, enough for every step of a discovery that is not waiting to run. */
const drain = async () => {
  for (let i = 0; i < 100; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** A chain's registry backfill over blocks 0-999, done once `done()` says so. */
const registryBackfill = (done: () => boolean) =>
  ({
    start: () => undefined,
    progress: () => ({ from: 0, to: 999, next: done() ? 1_000 : 10, logs: 0, calls: 0, done: done() }),
    done: () => Promise.resolve(),
    stop: async () => undefined,
  }) as unknown as NonNullable<DiscoveryDeps["registry"]>;

/** One log scan reads and one waits: the scan of a third wallet asked by a request finds the line full. */
const ONE_SCAN_WAITING = {
  ...DISCOVERY_DEFAULTS,
  scanStretch: 300,
  scans: 1,
  scanBatch: 1,
  scanQueueMax: 1,
  prefetchPerSecond: UNPACED,
};

/** A position finder that answers only when told to, and counts how often it was asked. */
const gatedFinder = () => {
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const finder = {
    asked: 0,
    open: () => open(),
    find: async (): Promise<Findings> => {
      finder.asked++;
      await gate;
      return { ops: [] };
    },
  };
  return finder;
};

const withFinder = (find: () => Promise<Findings>): Partial<DiscoveryDeps> => ({
  finders: { chain: [], wallet: [find], nftContracts: () => new Set(), nftIds: async () => ({ ops: [] }) },
  settings: { ...DISCOVERY_DEFAULTS, scanStretch: 300, answerGraceMs: 0 },
});

/**
 * `db` whose batches (those `holds` picks; all by default) wait until `release` (a disk thread a
 * loaded machine schedules late); every later batch goes at once. `held` counts the batches that
 * waited.
 */
const heldWrites = (db: Db, holds: (ops: ReadonlyArray<Operation>) => boolean = () => true) => {
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let released = false;
  let held = 0;
  const batch = async (ops: Array<Operation>) => {
    if (!released && holds(ops)) {
      held++;
      await gate;
    }
    return db.batch(ops);
  };
  return {
    db: new Proxy(db, {
      get: (target, key) => {
        if (key === "batch") return batch;
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }),
    held: () => held,
    release: () => {
      released = true;
      open();
    },
  };
};

/**
 * WALLET's discovery with keptSettled 1 and position finders that always fail: its job has failed
 * (and is settled) while its log scan's write of what it found waits to be released; every other
 * write goes through.
 */
const failedWithScanWriteHeld = async () => {
  const stored = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
  const writes = heldWrites(stored, (ops) => ops.some((op) => op.key.endsWith(SCANNED)));
  const discovery = discoveryOver(writes.db, walletNode(), {
    ...withFinder(() => Promise.reject(new Error("finder down"))),
    settings: { ...DISCOVERY_DEFAULTS, scanStretch: 300, answerGraceMs: 0, keptSettled: 1 },
  });
  await discovery.settle(chain, WALLET, 5_000);
  for (let i = 0; i < 500 && writes.held() === 0; i++) await new Promise((r) => setImmediate(r));
  expect(writes.held()).toBe(1);
  expect(discovery.progress(chain, WALLET).state).toBe("failed");
  return { stored, writes, discovery };
};

describe("wallet discovery", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("behavior: a balances request is answered once the sweep's tokens are written; a positions request waits for the position finders too", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const finder = gatedFinder();
    const discovery = discoveryOver(db, walletNode(), withFinder(finder.find));
    const tokens = await discovery.settle(chain, WALLET, 5_000, "tokens");
    // The finder has not answered: the tokens are in, the rest (finders, then the scan) follows.
    expect(finder.asked).toBe(1);
    expect(tokens.state).toBe("scanning");
    expect(await walletTokens(db)).toEqual([SWEPT]);
    expect(discovery.progress(chain, WALLET, "positions").state).toBe("sweeping");
    let positionsSettled = false;
    const positions = discovery.settle(chain, WALLET, 5_000, "positions").then((p) => {
      positionsSettled = true;
      return p;
    });
    await drain();
    expect(positionsSettled).toBe(false);
    finder.open();
    expect(["scanning", "complete"]).toContain((await positions).state);
    expect(await settled(discovery)).toBe("complete");
  });

  it("behavior: the pool lookups of the tokens a sweep found start before their metadata is written, with the chain's own tokens", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const prefetched: Array<{ tokens: ReadonlyArray<string>; storedThen: ReadonlyArray<string> }> = [];
    const discovery = discoveryOver(db, walletNode(), {
      prefetchPools: (_chain, tokens) => {
        void walletTokens(db).then((storedThen) => prefetched.push({ tokens, storedThen }));
      },
    });
    await discovery.settle(chain, WALLET, 5_000, "tokens");
    await drain();
    expect(prefetched).toHaveLength(1);
    expect(prefetched[0]!.tokens).toEqual(
      expect.arrayContaining([
        SWEPT,
        ...chain.tokens,
        ...(chain.wrapped_native === undefined ? [] : [chain.wrapped_native]),
      ]),
    );
    // Asked while the sweep's tokens were still to be written: off the first answer's path.
    expect(prefetched[0]!.storedThen).toEqual([]);
  });

  it("behavior: what discovery wrote for a wallet since a version is known while the sweep's write is the only one, and unknown once anything else was written", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const finder = gatedFinder();
    const discovery = discoveryOver(db, walletNode(), withFinder(finder.find));
    const before = discovery.version(chain.chain_id, WALLET);
    expect(discovery.tokensSince(chain.chain_id, WALLET, before)).toEqual([]);
    await discovery.settle(chain, WALLET, 5_000, "tokens");
    // The sweep wrote SWEPT: a read from before lacks it, and gets exactly it added.
    expect(discovery.tokensSince(chain.chain_id, WALLET, before)).toEqual([SWEPT]);
    expect(discovery.tokensSince(chain.chain_id, WALLET, discovery.version(chain.chain_id, WALLET))).toEqual(
      [],
    );
    // Then the log scan writes SCANNED: what was written since `before` is no longer the sweep's alone.
    finder.open();
    expect(await settled(discovery)).toBe("complete");
    expect(await walletTokens(db)).toEqual([SWEPT, SCANNED].sort());
    expect(discovery.tokensSince(chain.chain_id, WALLET, before)).toBeUndefined();
  });

  it("edge: a sweep whose finds the index already holds writes nothing, and claims no write of another", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    await db.batch([
      {
        type: "put",
        key: walletTokenKey(WALLET, chain.chain_id, SWEPT),
        value: { standard: "erc20", first_block: 1 },
      },
      {
        type: "put",
        key: tokenMetadataKey(chain.chain_id, SWEPT),
        value: { name: "S", symbol: "S", decimals: 18 },
      },
      { type: "put", key: vaultProbeKey(chain.chain_id, SWEPT), value: { asset: null } },
    ]);
    const finder = gatedFinder();
    const discovery = discoveryOver(db, walletNode(), withFinder(finder.find));
    const before = discovery.version(chain.chain_id, WALLET);
    await discovery.settle(chain, WALLET, 5_000, "tokens");
    expect(discovery.version(chain.chain_id, WALLET)).toBe(before);
    expect(discovery.tokensSince(chain.chain_id, WALLET, before)).toEqual([]);
    // The log scan then writes SCANNED: nothing of it may be taken for the sweep's.
    finder.open();
    expect(await settled(discovery)).toBe("complete");
    expect(discovery.tokensSince(chain.chain_id, WALLET, before)).toBeUndefined();
  });

  it("behavior: a sweep whose finds the index already describes answers them from memory while LevelDB writes the wallet's list, and keys reads made meanwhile apart", async () => {
    const stored = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    await stored.batch([
      {
        type: "put",
        key: tokenMetadataKey(chain.chain_id, SWEPT),
        value: { name: "S", symbol: "S", decimals: 18 },
      },
      { type: "put", key: vaultProbeKey(chain.chain_id, SWEPT), value: { asset: null } },
    ]);
    const writes = heldWrites(stored);
    const finder = gatedFinder();
    const discovery = discoveryOver(writes.db, walletNode(), withFinder(finder.find));
    // A balances answer in the making holds the log scan back, so the sweep's write is the only one.
    const answered = discovery.hold(WALLET, "tokens");
    const before = discovery.version(chain.chain_id, WALLET);
    const tokens = await discovery.settle(chain, WALLET, 5_000, "tokens");
    // Answered before LevelDB took the wallet's token: it is given from memory.
    expect(tokens.state).toBe("scanning");
    expect(writes.held()).toBe(1);
    expect(await walletTokens(stored)).toEqual([]);
    expect(discovery.tokensPending(chain.chain_id, WALLET)).toEqual([SWEPT]);
    const during = discovery.version(chain.chain_id, WALLET);
    expect(during).toBe(before + 0.5);
    expect(discovery.tokensSince(chain.chain_id, WALLET, before)).toEqual([]);
    writes.release();
    await drain();
    // Written: nothing pending, a new version, and reads from before or during know what was added.
    expect(await walletTokens(stored)).toEqual([SWEPT]);
    expect(discovery.tokensPending(chain.chain_id, WALLET)).toEqual([]);
    expect(discovery.version(chain.chain_id, WALLET)).toBeGreaterThan(before);
    expect(discovery.tokensSince(chain.chain_id, WALLET, before)).toEqual([SWEPT]);
    expect(discovery.tokensSince(chain.chain_id, WALLET, during)).toEqual([SWEPT]);
    answered();
    finder.open();
    expect(await settled(discovery)).toBe("complete");
  });

  it("edge: a sweep that found a token the index has never described is answered only once LevelDB has its metadata", async () => {
    const stored = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const writes = heldWrites(stored);
    const finder = gatedFinder();
    const discovery = discoveryOver(writes.db, walletNode(), withFinder(finder.find));
    let answered = false;
    const tokens = discovery.settle(chain, WALLET, 5_000, "tokens").then((progress) => {
      answered = true;
      return progress;
    });
    await drain();
    expect(writes.held()).toBe(1);
    expect(answered).toBe(false);
    expect(discovery.tokensPending(chain.chain_id, WALLET)).toEqual([]);
    writes.release();
    expect((await tokens).state).toBe("scanning");
    expect(await walletTokens(stored)).toEqual([SWEPT]);
    finder.open();
    expect(await settled(discovery)).toBe("complete");
  });

  it("behavior: while a balances answer is made the wallet's position finders and log scan wait; while a positions answer is made only the scan waits", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const node = walletNode();
    const finder = gatedFinder();
    finder.open();
    const discovery = discoveryOver(db, node, withFinder(finder.find));

    const balances = discovery.hold(WALLET, "tokens");
    await discovery.settle(chain, WALLET, 5_000, "tokens");
    await drain();
    expect(finder.asked).toBe(0);
    expect(node.ranges).toEqual([]);
    balances();
    expect(await settled(discovery)).toBe("complete");
    expect(finder.asked).toBe(1);
    expect(node.ranges.length).toBeGreaterThan(0);

    const other = `0x${"bb".repeat(20)}`;
    const positions = discovery.hold(other, "positions");
    const swept = await discovery.settle(chain, other, 5_000, "positions");
    expect(swept.state).toBe("scanning");
    expect(finder.asked).toBe(2);
    const scanned = node.ranges.length;
    await drain();
    expect(node.ranges.length).toBe(scanned);
    positions();
    for (let i = 0; i < 200 && discovery.progress(chain, other).state !== "complete"; i++) await drain();
    expect(discovery.progress(chain, other).state).toBe("complete");
    expect(node.ranges.length).toBeGreaterThan(scanned);
  });

  it("edge: a hold that is never released holds the wallet's discovery back for holdMaxMs at most", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const node = walletNode();
    const finder = gatedFinder();
    finder.open();
    const discovery = discoveryOver(db, node, withFinder(finder.find));
    discovery.hold(WALLET, "tokens");
    await discovery.settle(chain, WALLET, 5_000, "tokens");
    await drain();
    vi.advanceTimersByTime(DISCOVERY_DEFAULTS.holdMaxMs - 1);
    await drain();
    expect(finder.asked).toBe(0);
    vi.advanceTimersByTime(1);
    await drain();
    expect(finder.asked).toBe(1);
    // The scan waited for the same hold, from when the finders were done: its own holdMaxMs.
    vi.advanceTimersByTime(DISCOVERY_DEFAULTS.holdMaxMs);
    expect(await settled(discovery)).toBe("complete");
    expect(node.ranges.length).toBeGreaterThan(0);
  });

  it("behavior: sweeps and scans the history the index lacks newest first, and the wallet's index holds what both found", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const node = walletNode();
    const discovery = discoveryOver(db, node);
    const first = await discovery.settle(chain, WALLET, 5_000);
    expect(["scanning", "complete"]).toContain(first.state);
    expect(first.swept_block).toBe(1_000);
    expect(await settled(discovery)).toBe("complete");
    expect(await walletTokens(db)).toEqual([SCANNED, SWEPT].sort());
    // Newest first, in stretches of 300, down to block 0; four filters per stretch.
    const starts = [...new Set(node.ranges.map(([from]) => from))];
    expect(starts).toEqual([700, 400, 100, 0]);
    expect(discovery.version(chain.chain_id, WALLET)).toBeGreaterThanOrEqual(2);
    expect(await db.get(discoveryRecordKey(chain.chain_id, WALLET))).toMatchObject({
      swept_block: 1_000,
      scan: { from: 0, to: 999, below: 0 },
    });
  });

  it("behavior: on a chain indexed for discovered wallets only, the wallet is marked as its discovery starts and its scan reads up to where the index records it from", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const onlyDiscovered = testChainConfig({ index_wallets: "discovered" });
    // The index began at block 1,000 and has applied blocks up to 1,400 since, none recording this wallet.
    await db.put(indexCheckpointKey(1), { number: 1_400, hash: "0x01" });
    // The mark's write waits (a busy disk) until the sweep is done: the scan must wait for it.
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slowMarks = new Proxy(db, {
      get: (target, key) => {
        if (key === "batch")
          return (ops?: Array<Operation>) => {
            if (ops === undefined) return target.batch();
            return (async () => {
              if (ops.some((op) => op.key.startsWith("idx!iw!"))) await gate;
              return target.batch(ops);
            })();
          };
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const wallets = await IndexedWallets.load(slowMarks, [onlyDiscovered]);
    const node = walletNode();
    const discovery = discoveryOver(db, node, { wallets });
    expect(discovery.progress(onlyDiscovered, WALLET).state).toBe("not_started");
    await discovery.settle(onlyDiscovered, WALLET, 5_000);
    expect(wallets.records(onlyDiscovered, WALLET)).toBe(true);
    await drain();
    expect(node.ranges).toEqual([]);
    release();
    for (let i = 0; i < 200 && discovery.progress(onlyDiscovered, WALLET).state !== "complete"; i++)
      await drain();
    expect(discovery.progress(onlyDiscovered, WALLET).scan).toEqual({ from: 0, to: 1_400, below: 0 });
    expect(Math.max(...node.ranges.map(([, to]) => to))).toBe(1_400);
    // Not a history the index holds whole, though it began at block 0 for pools and times.
    const fromGenesis = discoveryOver(db, walletNode(), { wallets, indexedFrom: () => 0 });
    expect(fromGenesis.progress(onlyDiscovered, `0x${"cd".repeat(20)}`).state).toBe("not_started");
    expect(
      fromGenesis.progress(testChainConfig({ index_wallets: "all" }), `0x${"cd".repeat(20)}`).state,
    ).toBe("not_needed");
  });

  it("behavior: on a chain indexed for discovered wallets only, a webhook's wallets are recorded from its announcement, before each waits its turn in the queue", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const onlyDiscovered = testChainConfig({ index_wallets: "discovered" });
    const wallets = await IndexedWallets.load(db, [onlyDiscovered]);
    // One wallet a second: the second waits its turn long after the announcement.
    const discovery = discoveryOver(db, walletNode(), {
      wallets,
      settings: { ...DISCOVERY_DEFAULTS, scanStretch: 300, prefetchPerSecond: 1 },
    });
    const watched = [`0x${"AB".repeat(20)}`, `0x${"CD".repeat(20)}`];
    expect(discovery.prefetch([onlyDiscovered], watched, "hook")).toBe(2);
    expect(watched.every((wallet) => wallets.records(onlyDiscovered, wallet.toLowerCase()))).toBe(true);
    await drain();
    expect(await db.get(indexedWalletKey(1, watched[1]!.toLowerCase()))).toBe(0);
    expect(discovery.progress(onlyDiscovered, watched[1]!.toLowerCase()).state).toBe("not_started");
  });

  it("behavior: a scan a node failure stopped resumes where its saved record says, in a new process, without sweeping or reading finished stretches again", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const failing = walletNode({ failLogsBelow: 400 });
    const before = discoveryOver(db, failing);
    await before.settle(chain, WALLET, 5_000);
    expect(await settled(before)).toBe("scan_failed");
    expect(before.progress(chain, WALLET).scan).toEqual({ from: 0, to: 999, below: 400 });

    const healthy = walletNode();
    const after = discoveryOver(db, healthy);
    await after.settle(chain, WALLET, 5_000);
    expect(await settled(after)).toBe("complete");
    expect(Math.max(...healthy.ranges.map(([, to]) => to))).toBe(399);
    expect(await walletTokens(db)).toEqual([SCANNED, SWEPT].sort());
  });

  it("behavior: a finished scan is read further down once the nodes keep older logs (a node probed later), on the wallet's next request", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const node = walletNode();
    // The first probe to answer was a full node's: logs from block 500 on.
    node.rpc.endpoints[0]!.health.capabilities = { logsFrom: 500, probedAt: 0 };
    const discovery = discoveryOver(db, node);
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    expect(await walletTokens(db)).toEqual([SWEPT]);
    // An archive's probe answers later: the chain's logs now begin at block 0.
    node.rpc.endpoints[0]!.health.capabilities = { logsFrom: 0, probedAt: 1 };
    const asked = node.ranges.length;
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    // Only what the first scan could not read, and the transfer there is found.
    expect(Math.max(...node.ranges.slice(asked).map(([, to]) => to))).toBe(499);
    expect(await walletTokens(db)).toEqual([SCANNED, SWEPT].sort());
    expect(await db.get(discoveryRecordKey(chain.chain_id, WALLET))).toMatchObject({
      scan: { from: 0, to: 999, below: 0 },
    });
  });

  it("behavior: a wallet an earlier process discovered in full is complete on its first request in a new process, reading nothing of the node", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const before = discoveryOver(db, walletNode());
    await before.settle(chain, WALLET, 5_000);
    expect(await settled(before)).toBe("complete");

    const node = walletNode();
    const after = discoveryOver(db, node);
    // A request holds the wallet while it answers, as the API does.
    const release = after.hold(WALLET, "tokens");
    const progress = await after.settle(chain, WALLET, 5_000, "tokens");
    release();
    expect(progress.state).toBe("complete");
    expect(discoveryWarnings([{ chain, progress }], () => 0, "Balances", "http://svc")).toEqual([]);
    expect(node.ranges).toEqual([]);
  });

  it("behavior: past keptSettled, the settled jobs asked about least recently are let go; one asked again is complete at once from its record", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const node = walletNode();
    const discovery = discoveryOver(db, node, {
      settings: { ...DISCOVERY_DEFAULTS, scanStretch: 300, keptSettled: 2 },
    });
    const wallets = [WALLET, `0x${"bb".repeat(20)}`, `0x${"cc".repeat(20)}`];
    for (const wallet of wallets) {
      await discovery.settle(chain, wallet, 5_000);
      for (let i = 0; i < 200 && discovery.progress(chain, wallet).state !== "complete"; i++)
        await new Promise((r) => setImmediate(r));
    }
    // Three discovered, two kept: the first was let go.
    expect(discovery.stats().get(chain.chain_id)?.complete).toBe(2);
    expect(discovery.progress(chain, WALLET).state).toBe("not_started");
    const rangesBefore = node.ranges.length;
    const again = await discovery.settle(chain, WALLET, 0);
    expect(again.state).toBe("complete");
    expect(node.ranges.length).toBe(rangesBefore);
    // Asked again, it is kept, and the least recently asked of the others is let go.
    expect(discovery.stats().get(chain.chain_id)?.complete).toBe(2);
    expect(discovery.progress(chain, wallets[1]!).state).toBe("not_started");
    expect(discovery.progress(chain, wallets[2]!).state).toBe("complete");
  });

  it("behavior: a wallet let go takes its write version with it; its version never returns to one a read from before its writes had, and a let-go moves no wallet of another floor", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const discovery = discoveryOver(db, walletNode(), {
      settings: { ...DISCOVERY_DEFAULTS, scanStretch: 300, keptSettled: 2 },
    });
    const complete = async (wallet: string) => {
      await discovery.settle(chain, wallet, 5_000);
      for (let i = 0; i < 200 && discovery.progress(chain, wallet).state !== "complete"; i++)
        await new Promise((r) => setImmediate(r));
      expect(discovery.progress(chain, wallet).state).toBe("complete");
    };
    const version = (wallet: string) => discovery.version(chain.chain_id, wallet);
    // Never asked about: one on WALLET's floor (the same last four hex digits), one on another.
    const sameFloor = `0x${"ee".repeat(18)}${WALLET.slice(-4)}`;
    const otherFloor = `0x${"cd".repeat(20)}`;
    const beforeWrites = version(WALLET);
    await complete(WALLET);
    const written = version(WALLET);
    expect(written).toBeGreaterThan(beforeWrites);

    // More wallets than keptSettled, none on WALLET's floor: WALLET is let go.
    for (const other of ["01", "02", "03", "04"].map((b) => `0x${b.repeat(20)}`)) await complete(other);
    expect(discovery.progress(chain, WALLET).state).toBe("not_started");
    // Its entry is gone: it reads as its floor, as a wallet never asked about there does ...
    expect(version(WALLET)).toBe(version(sameFloor));
    // ... which is none a read from before its writes was keyed by, nor below what it wrote.
    expect(version(WALLET)).toBeGreaterThanOrEqual(written);
    // A wallet of another floor whose own floor no let-go moved keeps its version.
    expect(version(otherFloor)).toBe(beforeWrites);
    // What was written since `beforeWrites` is not known exactly any more: a read from then reads again.
    expect(discovery.tokensSince(chain.chain_id, WALLET, beforeWrites)).toBeUndefined();
  });

  it("edge: a write that lands after its wallet was let go (a log scan that outlived its failed job) moves the wallet's version and its last write, and is let go in turn", async () => {
    const { stored, writes, discovery } = await failedWithScanWriteHeld();
    const version = (wallet: string) => discovery.version(chain.chain_id, wallet);
    const lastWrite = (wallet: string) => discovery.lastWrite(chain.chain_id, wallet);
    const sameFloor = `0x${"ee".repeat(18)}${WALLET.slice(-4)}`;
    expect(lastWrite(WALLET)).toBeGreaterThan(0);
    // Another wallet settles: WALLET, past keptSettled, is let go while its scan's write waits.
    await discovery.settle(chain, `0x${"01".repeat(20)}`, 5_000);
    expect(discovery.progress(chain, WALLET).state).toBe("not_started");
    const letGo = version(WALLET);
    expect(letGo).toBe(version(sameFloor));
    expect(lastWrite(WALLET)).toBe(0);

    writes.release();
    await drain();
    expect(await walletTokens(stored)).toContain(SCANNED);
    // A read keyed before that write is not served after it, and the alerts see the write.
    expect(version(WALLET)).toBeGreaterThan(letGo);
    expect(lastWrite(WALLET)).toBe(version(WALLET));
    // The entry it made is let go as a settled wallet's is, once another settles.
    const generation = discovery.settledGeneration();
    await discovery.settle(chain, `0x${"02".repeat(20)}`, 5_000);
    expect(lastWrite(WALLET)).toBe(0);
    expect(version(WALLET)).toBe(version(sameFloor));
    // keptSettled (1) more wallets settled: the generation readers of lastWrite watch moved.
    expect(discovery.settledGeneration()).toBeGreaterThan(generation);
  });

  it("edge: a write for a settled wallet that is still kept (its failed job's log scan) marks it settled anew", async () => {
    const { stored, writes, discovery } = await failedWithScanWriteHeld();
    const generation = discovery.settledGeneration();
    writes.release();
    await drain();
    expect(await walletTokens(stored)).toContain(SCANNED);
    // One settling more (keptSettled is 1): a reader that compared lastWrite before the write sees
    // the generation move if the wallet is let go before it compares again.
    expect(discovery.settledGeneration()).toBe(generation + 1);
  });

  it("behavior: the resweep once the chain's registry backfill is done is told, unlike the daily one: the index lacks the registry's tokens until it ends", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let backfillDone = false;
    const registry = registryBackfill(() => backfillDone);
    let finds = 0;
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const discovery = discoveryOver(db, walletNode(), {
      registry,
      ...withFinder(async () => {
        if (finds++ > 0) await gate;
        return { ops: [] };
      }),
    });
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    backfillDone = true;
    const progress = await discovery.settle(chain, WALLET, 0);
    expect(progress.state).not.toBe("complete");
    expect(discoveryWarnings([{ chain, progress }], () => 0, "Balances", "http://svc")[0]?.code).toBe(
      "DISCOVERY_IN_PROGRESS",
    );
    open();
    expect(await settled(discovery)).toBe("complete");
  });

  it("behavior: a wallet swept before its chain's registry backfill was done is swept again once it is, in memory, after a restart and once let go; one swept after it is not", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let backfillDone = false;
    const registry = registryBackfill(() => backfillDone);
    let finds = 0;
    const counting = withFinder(async () => {
      finds++;
      return { ops: [] };
    });
    const process = () => discoveryOver(db, walletNode(), { ...counting, registry });
    const ask = async (discovery: ReturnType<typeof process>) => {
      await discovery.settle(chain, WALLET, 5_000);
      expect(await settled(discovery)).toBe("complete");
      await drain();
    };
    const first = process();
    await ask(first);
    expect(finds).toBe(1);
    // Asked again while the backfill runs: nothing to do.
    await ask(first);
    expect(finds).toBe(1);
    backfillDone = true;
    await ask(first);
    expect(finds).toBe(2);
    await ask(first);
    expect(finds).toBe(2);
    // A new process (a restart, or the job let go) reads the record: swept after the backfill.
    await ask(process());
    expect(finds).toBe(2);

    // Swept while the backfill ran, then the process restarted after it was done.
    const other = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    backfillDone = false;
    await ask(discoveryOver(other, walletNode(), { ...counting, registry }));
    expect(finds).toBe(3);
    backfillDone = true;
    await ask(discoveryOver(other, walletNode(), { ...counting, registry }));
    expect(finds).toBe(4);
  });

  it("behavior: what a sweep could not read in full is still said once the wallet is read back from its record", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const capped = withFinder(async () => ({ ops: [], truncated: "more than 1,000 NFTs" }));
    const before = discoveryOver(db, walletNode(), capped);
    await before.settle(chain, WALLET, 5_000);
    expect(await settled(before)).toBe("complete");
    expect(before.progress(chain, WALLET).truncated).toEqual(["more than 1,000 NFTs"]);
    const after = discoveryOver(db, walletNode(), capped);
    const progress = await after.settle(chain, WALLET, 0);
    expect(progress.state).toBe("complete");
    expect(progress.truncated).toEqual(["more than 1,000 NFTs"]);
  });

  it("edge: past sweepQueueMax wallets waiting for a first sweep, more are turned away at once, said once, and swept when asked again", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    // Every call waits until the gate opens (a slow node), then is refused.
    const rpc = fakeChainRpc(async (requests) => {
      await gate;
      return {
        kind: "answers",
        answers: requests.map(() => ({ ok: false, fault: { reason: "Rejected", detail: "no" } })),
      };
    });
    const warned: Array<string> = [];
    const discovery = discoveryOverNode(db, rpc, [SWEPT], {
      settings: { ...DISCOVERY_DEFAULTS, scanStretch: 300, sweeps: 1, sweepQueueMax: 2 },
      warn: (message) => {
        warned.push(message);
      },
    });
    const wallets = [1, 2, 3, 4, 5].map((n) => `0x${n.toString(16).padStart(40, "0")}`);
    // One sweeping, two waiting: the line is full for the last two.
    for (const wallet of wallets) await discovery.settle(chain, wallet, 0);
    await drain();
    const turnedAway = wallets.filter((w) => /already wait/.test(discovery.progress(chain, w).error ?? ""));
    expect(turnedAway).toEqual(wallets.slice(3));
    expect(warned.filter((m) => /already wait/.test(m))).toHaveLength(1);
    open();
    for (const wallet of wallets.slice(0, 3)) await discovery.settle(chain, wallet, 5_000);
    // Asked again once the line has room, it is swept (and fails on this node's refusal instead).
    await discovery.settle(chain, wallets[3]!, 5_000);
    expect(discovery.progress(chain, wallets[3]!).error).not.toMatch(/already wait/);
  });

  it("behavior: a failed first sweep is tried again on the wallet's next request, since until then the chain cannot be answered", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let node = walletNode({ failSweep: true });
    const discovery = discoveryOver(db, node, { rpc: () => node.rpc });
    const first = await discovery.settle(chain, WALLET, 5_000);
    expect(first.state).toBe("failed");
    expect(first.error).toBeDefined();
    node = walletNode();
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    expect(await walletTokens(db)).toContain(SWEPT);
  });

  it("behavior: once the index reports chain events it missed, a wallet swept before then is swept again on its next request, once", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let now = 1_000;
    let finds = 0;
    const discovery = discoveryOver(db, walletNode(), {
      ...withFinder(async () => {
        finds++;
        return { ops: [] };
      }),
      now: () => now,
    });
    const ask = async (at: number) => {
      now = at;
      await discovery.settle(chain, WALLET, 5_000);
      expect(await settled(discovery)).toBe("complete");
      await drain();
    };
    const complete = () => discovery.stats().get(chain.chain_id)?.complete;
    await ask(1_000);
    await ask(2_000);
    expect(finds).toBe(1);
    expect(complete()).toBe(1);
    discovery.indexTrimmed(1_500);
    await ask(3_000);
    expect(finds).toBe(2);
    await ask(4_000);
    expect(finds).toBe(2);
    // Swept twice, one wallet: counted complete once.
    expect(complete()).toBe(1);
  });

  it("behavior: a request's log scan beyond scanQueueMax is turned away: its answer keeps the sweep's tokens and says why its history is not read; a webhook's ask reads it at once, a request's after retryMs", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let now = 0;
    const node = walletNode({ logsGate: gate });
    const discovery = discoveryOver(db, node, {
      settings: ONE_SCAN_WAITING,
      now: () => now,
    });
    const [running, waiting, forWebhook, asksAgain] = ["a1", "a2", "a3", "a4"].map(
      (b) => `0x${b.repeat(20)}`,
    );
    const settle = async (wallet: string) => {
      await discovery.settle(chain, wallet, 5_000, "tokens");
      await drain();
    };
    const untilComplete = async (wallet: string) => {
      for (let i = 0; i < 20 && discovery.progress(chain, wallet!).state !== "complete"; i++) await drain();
      expect(discovery.progress(chain, wallet!).state).toBe("complete");
    };
    // One scan reads (held at its first eth_getLogs), one waits for it, the next find the line full.
    for (const wallet of [running!, waiting!, forWebhook!, asksAgain!]) await settle(wallet);
    expect(discovery.progress(chain, waiting!)).toMatchObject({ state: "scanning", scan_queued: true });
    const refused = discovery.progress(chain, forWebhook!, "tokens");
    expect(refused).toMatchObject({ state: "scan_failed", swept_block: 1_000 });
    expect(refused.error).toContain("wait for their log scans");
    const [warning] = discoveryWarnings([{ chain, progress: refused }], () => 0, "Balances", "http://svc");
    expect(warning?.code).toBe("DISCOVERY_IN_PROGRESS");
    expect(warning?.message).toContain("wait for their log scans");
    // The sweep's tokens are in the index all the same.
    const held: Array<string> = [];
    for await (const key of db.keys({
      gte: walletTokenPrefix(forWebhook!),
      lt: `${walletTokenPrefix(forWebhook!)}~`,
    }))
      held.push(key as string);
    expect(held.some((key) => key.endsWith(SWEPT))).toBe(true);
    // Asked again by a request before retryMs: still turned away.
    await settle(asksAgain!);
    expect(discovery.progress(chain, asksAgain!).state).toBe("scan_failed");
    // A webhook watching it queues its scan at once, beyond the requests' line.
    expect(discovery.prefetch([chain], [forWebhook!])).toBe(1);
    await drain();
    expect(discovery.progress(chain, forWebhook!)).toMatchObject({ state: "scanning", scan_queued: true });
    open();
    for (const wallet of [running!, waiting!, forWebhook!]) await untilComplete(wallet);
    now = DISCOVERY_DEFAULTS.retryMs;
    await settle(asksAgain!);
    await untilComplete(asksAgain!);
  });

  it("behavior: a wallet whose finders failed and whose log scan a full line turned away waits for its retry: a webhook's ask does not run its finders again at once", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let now = 0;
    const [running, waiting, failing] = ["b1", "b2", "b3"].map((b) => `0x${b.repeat(20)}`);
    let failingFinds = 0;
    const discovery = discoveryOver(db, walletNode({ logsGate: gate }), {
      finders: {
        chain: [],
        wallet: [
          async (_context, wallet) => {
            if (wallet !== failing) return { ops: [] };
            failingFinds++;
            throw new Error("finder down");
          },
        ],
        nftContracts: () => new Set(),
        nftIds: async () => ({ ops: [] }),
      },
      settings: ONE_SCAN_WAITING,
      now: () => now,
    });
    // One scan reads (held at its first eth_getLogs), one waits for it; the failing wallet's scan
    // finds the line full, and its finders fail.
    for (const wallet of [running!, waiting!, failing!]) {
      await discovery.settle(chain, wallet, 5_000, "tokens");
      await drain();
    }
    expect(failingFinds).toBe(1);
    expect(discovery.progress(chain, failing!, "tokens").error).toContain("finder down");
    // Its scan found the line full: the scanning and the waiting wallet hold it.
    expect(discovery.progress(chain, waiting!)).toMatchObject({ state: "scanning", scan_queued: true });
    expect(discovery.progress(chain, failing!, "tokens").scan_queued).not.toBe(true);
    // A webhook watching it before the retry is due: the failure is the finders', so it is known.
    now = 4_999;
    expect(discovery.prefetch([chain], [failing!])).toBe(0);
    await drain();
    expect(failingFinds).toBe(1);
    // Once the retry is due (5 s after a first sweep's finders failed), the webhook's ask runs it
    // again, finders and scan.
    now = 5_000;
    expect(discovery.prefetch([chain], [failing!])).toBe(1);
    await drain();
    expect(failingFinds).toBe(2);
    open();
    await drain();
  });

  it("behavior: a webhook that announces a wallet while its finders still run, after a full line turned its log scan away, gets the scan once the job ends", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let openLogs = () => {};
    const logsGate = new Promise<void>((resolve) => {
      openLogs = resolve;
    });
    const finder = gatedFinder();
    const discovery = discoveryOver(db, walletNode({ logsGate }), {
      ...withFinder(finder.find),
      settings: ONE_SCAN_WAITING,
    });
    const [running, waiting, announced, withdrawn] = ["c1", "c2", "c3", "c4"].map((b) => `0x${b.repeat(20)}`);
    // One scan reads (held at its first eth_getLogs), one waits for it, the last two are turned
    // away; every wallet's finders are held, so all four jobs still run.
    for (const wallet of [running!, waiting!, announced!, withdrawn!]) {
      await discovery.settle(chain, wallet, 5_000, "tokens");
      await drain();
    }
    for (const wallet of [announced!, withdrawn!]) {
      expect(discovery.progress(chain, wallet, "positions").state).toBe("sweeping");
      expect(discovery.progress(chain, wallet, "tokens").scan_queued).not.toBe(true);
    }
    // Webhooks start watching them now: the jobs run, so the wallets are known and not queued.
    expect(discovery.prefetch([chain], [announced!], "hook-1")).toBe(0);
    expect(discovery.prefetch([chain], [withdrawn!], "hook-2")).toBe(0);
    // The second webhook stops watching its wallet before the job ends.
    discovery.unprefetch("hook-2", [withdrawn!]);
    // The finders answer; the jobs end failed for the full line alone, and the ask of the webhook
    // still watching comes back: its wallet's scan joins the line, beyond the requests' bound.
    finder.open();
    await drain();
    expect(discovery.progress(chain, announced!)).toMatchObject({ state: "scanning", scan_queued: true });
    // The other wallet's scan was turned away as well, and no webhook wants it any more.
    expect(discovery.progress(chain, withdrawn!)).toMatchObject({
      state: "scan_failed",
      error: expect.stringContaining("wait for their log scans"),
    });
    expect(discovery.prefetchQueued()).toBe(0);
    openLogs();
    for (let i = 0; i < 20 && discovery.progress(chain, announced!).state !== "complete"; i++) await drain();
    expect(discovery.progress(chain, announced!).state).toBe("complete");
  });

  it("behavior: a chain's own missed blocks make only that chain's wallets swept again; missed stream messages make every chain's", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const other = testChainConfig({ chain_id: 2, name: "second" });
    let now = 1_000;
    const finds: Array<number> = [];
    const discovery = discoveryOver(db, walletNode(), {
      finders: {
        chain: [],
        wallet: [
          async (context) => {
            finds.push(context.chain.chain_id);
            return { ops: [] };
          },
        ],
        nftContracts: () => new Set(),
        nftIds: async () => ({ ops: [] }),
      },
      now: () => now,
    });
    const ask = async (at: number) => {
      now = at;
      for (const c of [chain, other]) await discovery.settle(c, WALLET, 5_000);
      await drain();
      for (const c of [chain, other]) expect(discovery.progress(c, WALLET).state).toBe("complete");
    };
    await ask(1_000);
    expect(finds.sort()).toEqual([1, 2]);
    finds.length = 0;
    // Ingest never published blocks of the second chain: only its wallets may lack something.
    discovery.indexTrimmed(1_500, other.chain_id);
    await ask(2_000);
    expect(finds).toEqual([2]);
    finds.length = 0;
    await ask(3_000);
    expect(finds).toEqual([]);
    // Stream messages of unknown chains were dropped: every chain's wallets are swept again.
    discovery.indexTrimmed(3_500);
    await ask(4_000);
    expect(finds.sort()).toEqual([1, 2]);
  });

  it("behavior: a chain indexed from its first block needs no discovery when only another chain's blocks were missed", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const discovery = discoveryOver(db, walletNode(), { indexedFrom: () => 0 });
    discovery.indexTrimmed(1, 2);
    expect((await discovery.settle(chain, WALLET, 5_000)).state).toBe("not_needed");
    discovery.indexTrimmed(2, chain.chain_id);
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
  });

  it("behavior: a chain indexed from its first block needs discovery once the index has missed chain events", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const discovery = discoveryOver(db, walletNode(), { indexedFrom: () => 0 });
    expect((await discovery.settle(chain, WALLET, 5_000)).state).toBe("not_needed");
    discovery.indexTrimmed(1);
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    expect(await walletTokens(db)).toContain(SWEPT);
  });

  it("behavior: a first sweep whose tokens were read but whose position finders failed is tried again after 5 s, not on every request", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let now = 0;
    let finderFails = true;
    const node = walletNode();
    let sweeps = 0;
    const counted = new Proxy(node.rpc, {
      get: (target, key) => {
        const value = Reflect.get(target, key, target);
        if (key === "forRequests")
          return (...args: Array<unknown>) => {
            sweeps++;
            return (value as (...a: Array<unknown>) => unknown).apply(target, args);
          };
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const discovery = discoveryOver(db, node, {
      rpc: () => counted,
      now: () => now,
      ...withFinder(() =>
        finderFails ? Promise.reject(new Error("finder down")) : Promise.resolve({ ops: [] }),
      ),
    });
    await discovery.settle(chain, WALLET, 5_000);
    await drain();
    expect(discovery.progress(chain, WALLET).state).toBe("failed");
    const first = sweeps;
    now = 4_999;
    await discovery.settle(chain, WALLET, 5_000);
    await drain();
    expect(sweeps).toBe(first);
    finderFails = false;
    now = 5_000;
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    expect(sweeps).toBe(first + 1);
  });

  it("behavior: a wallet swept again after resweepMs is swept in the background: its requests neither wait nor are told", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let now = 0;
    let finds = 0;
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    // The first sweep's finders answer; the resweep's wait until the gate opens.
    const discovery = discoveryOver(db, walletNode(), {
      now: () => now,
      ...withFinder(async () => {
        if (finds++ > 0) await gate;
        return { ops: [] };
      }),
    });
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    now = DISCOVERY_DEFAULTS.resweepMs;
    const started = performance.now();
    const progress = await discovery.settle(chain, WALLET, 2_000);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(progress.state).toBe("complete");
    expect(discoveryWarnings([{ chain, progress }], () => 0, "Balances", "http://svc")).toEqual([]);
    // The resweep runs all the same, its finders waiting on the node.
    await drain();
    expect(finds).toBe(2);
    expect(discovery.progress(chain, WALLET).state).toBe("complete");
    open();
    expect(await settled(discovery)).toBe("complete");
  });

  it("behavior: blocks the index jumped over are scanned: a wallet discovered before is swept and scanned again up to them", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let now = 0;
    const node = walletNode();
    // The index holds blocks from 100 on: the wallet's transfer at block 150 is indexed, not scanned.
    const discovery = discoveryOver(db, node, { now: () => now, indexedFrom: () => 100 });
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    expect(await walletTokens(db)).toEqual([SWEPT]);
    // Blocks 140-160 were never published: the index lacks that transfer.
    now = 1;
    discovery.indexTrimmed(now);
    discovery.indexGap(chain.chain_id, 160);
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    expect(await walletTokens(db)).toEqual([SCANNED, SWEPT].sort());
    expect(await db.get(discoveryRecordKey(chain.chain_id, WALLET))).toMatchObject({
      scan: { from: 0, to: 160, below: 0 },
    });
  });

  it("edge: blocks the index jumped over after a wallet's scan finished (its chain's first block after a trim) are scanned on its next request", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const node = walletNode();
    const discovery = discoveryOver(db, node, { indexedFrom: () => 100 });
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    // The trim was reported before this wallet's sweep; its blocks are known only now.
    discovery.indexGap(chain.chain_id, 160);
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    expect(await walletTokens(db)).toEqual([SCANNED, SWEPT].sort());
  });

  it("edge: a gap the index filled since (blocks stored out of order, then repaired) no longer widens wallets' scans", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const node = walletNode();
    const discovery = discoveryOver(db, node, { indexedFrom: () => 100 });
    discovery.indexGap(chain.chain_id, 160);
    discovery.indexGap(chain.chain_id, undefined);
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    // Only the history before the index is read: block 150's transfer is the index's to know.
    expect(await walletTokens(db)).toEqual([SWEPT]);
    expect(await db.get(discoveryRecordKey(chain.chain_id, WALLET))).toMatchObject({
      scan: { from: 0, to: 99, below: 0 },
    });
  });

  it("edge: a wallet scanned up to a gap the index has filled since is complete, not scanned again", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const node = walletNode();
    const before = discoveryOver(db, node, { indexedFrom: () => 100 });
    before.indexGap(chain.chain_id, 160);
    await before.settle(chain, WALLET, 5_000);
    expect(await settled(before)).toBe("complete");
    const read = node.ranges.length;
    expect(read).toBeGreaterThan(0);
    // After a restart the gap is filled: the scan read down from 160 covers what precedes the index.
    const after = discoveryOver(db, node, { indexedFrom: () => 100 });
    await after.settle(chain, WALLET, 5_000);
    expect(after.progress(chain, WALLET).state).toBe("complete");
    expect(node.ranges.length).toBe(read);
  });

  it("edge: a background resweep that fails leaves its wallet complete to requests, and is tried again after retryMs", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let now = 0;
    let node = walletNode();
    const warned: Array<string> = [];
    const discovery = discoveryOver(db, node, {
      now: () => now,
      rpc: () => node.rpc,
      warn: (message) => {
        warned.push(message);
      },
    });
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    node = walletNode({ failSweep: true });
    now = DISCOVERY_DEFAULTS.resweepMs;
    await discovery.settle(chain, WALLET, 5_000);
    await drain();
    expect(warned.some((m) => m.includes(`discovery of ${WALLET}`))).toBe(true);
    expect(discovery.progress(chain, WALLET).state).toBe("complete");
    // Tried again after retryMs, and complete once it succeeds.
    node = walletNode();
    now = DISCOVERY_DEFAULTS.resweepMs + DISCOVERY_DEFAULTS.retryMs;
    const asked = node.ranges.length;
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    expect(node.ranges.length).toBe(asked);
  });

  it("behavior: a failed scan of a swept wallet is tried again on a request after retryMs, not before", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let now = 0;
    let node = walletNode({ failLogsBelow: 400 });
    const discovery = discoveryOver(db, node, { rpc: () => node.rpc, now: () => now });
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("scan_failed");
    node = walletNode();
    now = DISCOVERY_DEFAULTS.retryMs - 1;
    await discovery.settle(chain, WALLET, 5_000);
    expect(discovery.progress(chain, WALLET).state).toBe("scan_failed");
    now = DISCOVERY_DEFAULTS.retryMs;
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    expect(await walletTokens(db)).toEqual([SCANNED, SWEPT].sort());
  });

  it("edge: a wallet done while the nodes kept no logs below the index's start is scanned once they do (an archive's probe answered late)", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const node = walletNode();
    // Only the pruned node has answered its probe: logs from block 500, above the index's start.
    node.rpc.endpoints[0]!.health.capabilities = { logsFrom: 500, probedAt: 0 };
    // The index holds blocks from 200 on: the wallet's transfer at block 150 is history to scan.
    const discovery = discoveryOver(db, node, { indexedFrom: () => 200 });
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    expect(node.ranges).toEqual([]);
    // The archive's probe answers: every log is kept. The wallet's history before the index is read.
    node.rpc.endpoints[0]!.health.capabilities = { logsFrom: 0, probedAt: 1 };
    const asked = await discovery.settle(chain, WALLET, 0);
    expect(asked.state).not.toBe("complete");
    expect(await settled(discovery)).toBe("complete");
    expect(await walletTokens(db)).toEqual([SCANNED, SWEPT].sort());
  });

  it("edge: a resweep after a trim that fails is swept again on the request after retryMs, which is not told the wallet is complete meanwhile", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let now = 0;
    let node = walletNode();
    const discovery = discoveryOver(db, node, { rpc: () => node.rpc, now: () => now, warn: () => {} });
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    now = 1;
    discovery.indexTrimmed(1);
    node = walletNode({ failSweep: true });
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).not.toBe("complete");
    node = walletNode();
    now = 1 + DISCOVERY_DEFAULTS.retryMs;
    const asked = await discovery.settle(chain, WALLET, 0);
    expect(asked.state).not.toBe("complete");
    expect(await settled(discovery)).toBe("complete");
    expect(await db.get(discoveryRecordKey(chain.chain_id, WALLET))).toMatchObject({ swept_at: now });
  });

  it("edge: a trim reported while a wallet's sweep runs leaves the sweep stale: the next request sweeps it again", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let now = 0;
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const slowFinder = withFinder(async () => {
      await gate;
      return { ops: [] };
    });
    const discovery = discoveryOver(db, walletNode(), { ...slowFinder, now: () => now });
    await discovery.settle(chain, WALLET, 0);
    await drain();
    now = 5;
    discovery.indexTrimmed(5);
    now = 10;
    open();
    expect(await settled(discovery)).toBe("complete");
    now = 20;
    const asked = await discovery.settle(chain, WALLET, 0);
    expect(asked.state).not.toBe("complete");
    expect(await settled(discovery)).toBe("complete");
    expect(await db.get(discoveryRecordKey(chain.chain_id, WALLET))).toMatchObject({ swept_at: 20 });
  });

  it("behavior: while a background resweep runs, what the last sweep could not read in full is still said", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let now = 0;
    let open = () => {};
    let gate: Promise<void> | undefined;
    const capped = withFinder(async () => {
      await gate;
      return { ops: [], truncated: "more than 1,000 NFTs" };
    });
    const discovery = discoveryOver(db, walletNode(), { ...capped, now: () => now });
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    now = DISCOVERY_DEFAULTS.resweepMs;
    await discovery.settle(chain, WALLET, 0);
    await drain();
    expect(discovery.progress(chain, WALLET).truncated).toEqual(["more than 1,000 NFTs"]);
    open();
    await drain();
    expect(discovery.progress(chain, WALLET).truncated).toEqual(["more than 1,000 NFTs"]);
    expect(await db.get(discoveryRecordKey(chain.chain_id, WALLET))).toMatchObject({
      swept_at: now,
      truncated: ["more than 1,000 NFTs"],
    });
  });

  it("edge: on a chain indexed from its first block, discovery after another chain's trim warns of no history the nodes' logs lack; a gap of its own is history they may lack", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const node = walletNode();
    const discovery = discoveryOver(db, node, { indexedFrom: () => 0 });
    // Another chain's stream messages were dropped: every chain's wallets are discovered again.
    discovery.indexTrimmed(1);
    await discovery.settle(chain, WALLET, 5_000);
    expect(await settled(discovery)).toBe("complete");
    const progress = discovery.progress(chain, WALLET);
    expect(progress.history_indexed).toBe(true);
    // The nodes keep logs from block 500 only: nothing before it is missing from this index.
    expect(discoveryWarnings([{ chain, progress }], () => 500, "Balances", "http://svc")).toEqual([]);

    // A scan of a gap the index has filled since says nothing missing either.
    const filled = { ...progress, scan: { from: 500, to: 999, below: 500 } };
    expect(discoveryWarnings([{ chain, progress: filled }], () => 500, "Balances", "http://svc")).toEqual([]);

    discovery.indexGap(chain.chain_id, 160);
    const gapped = discovery.progress(chain, WALLET);
    expect(gapped.history_indexed).toBeUndefined();
    expect(
      discoveryWarnings([{ chain, progress: gapped }], () => 500, "Balances", "http://svc")[0]?.code,
    ).toBe("INCOMPLETE_HISTORY");
  });

  it("behavior: a chain's universe is read from the index once per universeTtlMs, not once per wallet", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let now = 0;
    let reads = 0;
    const discovery = discoveryOver(db, walletNode(), {
      now: () => now,
      universe: {
        listed: () => {
          reads++;
          return [SWEPT];
        },
      },
    });
    const other = `0x${"bb".repeat(20)}`;
    await discovery.settle(chain, WALLET, 5_000);
    await discovery.settle(chain, other, 5_000);
    expect(reads).toBe(1);
    now = DISCOVERY_DEFAULTS.universeTtlMs;
    await discovery.settle(chain, `0x${"cc".repeat(20)}`, 5_000);
    expect(reads).toBe(2);
  });

  it("behavior: once the chain's registry backfill is done, the next sweep waits for a universe read after it, even within the same millisecond", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let backfillDone = false;
    let finish = () => {};
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const registry = {
      ...registryBackfill(() => backfillDone),
      done: () => finished,
    } as unknown as NonNullable<DiscoveryDeps["registry"]>;
    const later = `0x${"7e".repeat(20)}`;
    let listed = [SWEPT];
    const swept: Array<ReadonlyArray<string>> = [];
    const discovery = discoveryOver(db, walletNode({ onSweep: (tokens) => swept.push(tokens) }), {
      registry,
      settings: { ...DISCOVERY_DEFAULTS, scanStretch: 300, registryWaitMs: 1 },
      universe: { listed: () => listed },
    });
    await discovery.settle(chain, WALLET, 5_000);
    expect(swept.at(-1)).not.toContain(later);
    // The backfill found a pool whose token the universe now holds; the clock has not moved.
    listed = [SWEPT, later];
    backfillDone = true;
    finish();
    await drain();
    await discovery.settle(chain, `0x${"bb".repeat(20)}`, 5_000);
    expect(swept.at(-1)).toContain(later);
  });

  it("behavior: a universe due again is read in the background, once at a time: the sweeps that find it due go on with the one before; one not read again for two intervals is waited for; a background read that fails leaves the one before and is tried again", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let now = 0;
    let listed = [SWEPT];
    let reads = 0;
    let failRead = false;
    const swept: Array<ReadonlyArray<string>> = [];
    const discovery = discoveryOver(db, walletNode({ onSweep: (tokens) => swept.push(tokens) }), {
      now: () => now,
      universe: {
        listed: () => {
          reads++;
          if (failRead) throw new Error("the index could not be read");
          return listed;
        },
      },
    });
    const ttl = DISCOVERY_DEFAULTS.universeTtlMs;
    let wallets = 0;
    const ask = async (at: number) => {
      now = at;
      await discovery.settle(chain, `0x${(0xb000 + wallets++).toString(16).padStart(40, "0")}`, 5_000);
    };
    const later = `0x${"7e".repeat(20)}`;
    const lastSwept = () => swept.at(-1) ?? [];
    await ask(0);
    expect(reads).toBe(1);
    listed = [SWEPT, later];
    // Due: two sweeps at once go on with the universe they had; one read runs for both.
    await Promise.all([ask(ttl), ask(ttl)]);
    expect(swept.slice(-2).map((tokens) => tokens.includes(later))).toEqual([false, false]);
    expect(reads).toBe(2);
    await drain();
    await ask(ttl + 1);
    expect(lastSwept()).toContain(later);
    expect(reads).toBe(2);
    // A background read that fails leaves the universe as it was; the next due sweep reads again.
    listed = [SWEPT];
    failRead = true;
    await ask(2 * ttl + 2);
    await drain();
    expect(reads).toBe(3);
    failRead = false;
    await ask(2 * ttl + 3);
    expect(lastSwept()).toContain(later);
    await drain();
    expect(reads).toBe(4);
    await ask(2 * ttl + 4);
    expect(lastSwept()).not.toContain(later);
    // Not read again for two intervals (a quiet chain): the sweep waits for a new one.
    listed = [SWEPT, later];
    await ask(5 * ttl);
    expect(lastSwept()).toContain(later);
    expect(reads).toBe(5);
  });

  it("behavior: wallets queued for a webhook are discovered in the background, once each, within the queue's bound", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const discovery = discoveryOver(db, walletNode(), {
      settings: { ...DISCOVERY_DEFAULTS, scanStretch: 300, prefetchMax: 2, prefetchPerSecond: UNPACED },
    });
    const others = [`0x${"bb".repeat(20)}`, `0x${"cc".repeat(20)}`];
    expect(discovery.prefetch([chain], [WALLET.toUpperCase().replace("0X", "0x"), ...others])).toBe(2);
    expect(discovery.prefetch([chain], [WALLET])).toBe(0);
    for (let i = 0; i < 500 && discovery.progress(chain, others[0]!).state !== "complete"; i++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(discovery.progress(chain, WALLET).state).toBe("complete");
    expect(discovery.progress(chain, others[0]!).state).toBe("complete");
    // Past the bound: left to its first request.
    expect(discovery.progress(chain, others[1]!).state).toBe("not_started");
    expect(discovery.prefetchQueued()).toBe(0);
    expect(await walletTokens(db)).toEqual([SCANNED, SWEPT].sort());
  });

  it("behavior: operators see a webhook's wallets that wait for their turn, per chain, until each starts, by its turn or by a request", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const finder = gatedFinder();
    const discovery = discoveryOver(db, walletNode(), {
      ...withFinder(finder.find),
      settings: { ...DISCOVERY_DEFAULTS, scanStretch: 300, answerGraceMs: 0, prefetchPerSecond: UNPACED },
    });
    const others = [`0x${"bb".repeat(20)}`, `0x${"cc".repeat(20)}`];
    expect(discovery.prefetch([chain], [WALLET, ...others])).toBe(3);
    // The first is being swept (its finder holds it); the other two wait.
    await drain();
    expect(discoveryCounts(discovery.stats().get(chain.chain_id), 1_000)).toEqual({
      queued: 2,
      sweeping: 1,
      scanning: 0,
      scan_queued: 0,
      complete: 0,
      failed: 0,
    });
    // A request for a waiting wallet starts it: it leaves the queue, counted once, as sweeping.
    await discovery.settle(chain, others[0]!, 0);
    expect(discovery.prefetchQueued()).toBe(1);
    expect(discoveryCounts(discovery.stats().get(chain.chain_id), 1_000)).toMatchObject({
      queued: 1,
      sweeping: 2,
    });
    finder.open();
    for (let i = 0; i < 500 && discovery.prefetchQueued() > 0; i++) await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 500 && discovery.progress(chain, others[1]!).state !== "complete"; i++)
      await new Promise((r) => setImmediate(r));
    expect(discoveryCounts(discovery.stats().get(chain.chain_id), 1_000)).toMatchObject({
      queued: 0,
      complete: 3,
    });
  });

  it("edge: a webhook's waiting wallet that a request started goes back to the queue when that request's sweep fails", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const other = `0x${"bb".repeat(20)}`;
    let node = walletNode();
    // The first wallet's finders hold the queue's turn until opened.
    const finder = gatedFinder();
    const discovery = discoveryOver(db, node, {
      ...withFinder((...args: ReadonlyArray<unknown>) =>
        args[1] === WALLET ? finder.find() : Promise.resolve({ ops: [] }),
      ),
      rpc: () => node.rpc,
      settings: { ...DISCOVERY_DEFAULTS, scanStretch: 300, answerGraceMs: 0, prefetchPerSecond: UNPACED },
    });
    expect(discovery.prefetch([chain], [WALLET, other], "wh_a")).toBe(2);
    await drain();
    expect(discovery.prefetchQueued()).toBe(1);
    // A request starts the waiting wallet while the node fails its sweep.
    node = walletNode({ failSweep: true });
    expect((await discovery.settle(chain, other, 5_000)).state).toBe("failed");
    await drain();
    expect(discovery.prefetchQueued()).toBe(1);
    // Its turn comes once the node answers again: discovered without another request.
    node = walletNode();
    finder.open();
    for (let i = 0; i < 500 && discovery.progress(chain, other).state !== "complete"; i++)
      await new Promise((r) => setImmediate(r));
    expect(discovery.progress(chain, other).state).toBe("complete");
    expect(discovery.prefetchQueued()).toBe(0);
  });

  it("behavior: a webhook's wallet whose discovery failed is queued again when a webhook announces it again", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    let node = walletNode({ failSweep: true });
    const discovery = discoveryOver(db, node, {
      rpc: () => node.rpc,
      settings: { ...DISCOVERY_DEFAULTS, scanStretch: 300, prefetchPerSecond: UNPACED },
    });
    expect(discovery.prefetch([chain], [WALLET], "wh_a")).toBe(1);
    expect(await settled(discovery)).toBe("failed");
    node = walletNode();
    expect(discovery.prefetch([chain], [WALLET], "wh_a")).toBe(1);
    for (let i = 0; i < 500 && discovery.progress(chain, WALLET).state !== "complete"; i++)
      await new Promise((r) => setImmediate(r));
    expect(discovery.progress(chain, WALLET).state).toBe("complete");
    // Once discovered it is known: announcing it again queues nothing.
    expect(discovery.prefetch([chain], [WALLET], "wh_b")).toBe(0);
  });

  it("default: a webhook's wallets are not queued where the index holds the chain's whole history", () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const discovery = discoveryOver(db, walletNode(), { indexedFrom: () => 0 });
    expect(discovery.prefetch([chain], [WALLET])).toBe(0);
    expect(discovery.prefetchQueued()).toBe(0);
  });

  it("default: nothing is read where the index holds the chain's whole history", async () => {
    const db = new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db;
    const node = walletNode();
    const discovery = discoveryOver(db, node, { indexedFrom: () => 0 });
    expect((await discovery.settle(chain, WALLET, 5_000)).state).toBe("not_needed");
    expect(node.ranges).toEqual([]);
    expect(await walletTokens(db)).toEqual([]);
  });
});
