import { readFile } from "node:fs/promises";
import { Effect } from "effect";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  http,
  parseAbi,
  toEventSelector,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChainConfig, decodeChainsConfigFile } from "../../../src/chains/ChainsConfig.js";
import { aggregate3 } from "../../../src/chains/multicall3.js";
import type { BlockRef } from "../../../src/chains/readEachChain.js";
import type { ChainRpc } from "../../../src/chains/rpc/ChainRpc.js";
import type { RpcRequest } from "../../../src/chains/rpc/RpcRequest.js";
import type { ManifestChain } from "../../../src/devnet/DevnetManifest.js";
import { planBlock } from "../../../src/indexer/applyBlock.js";
import { DisownedNfts } from "../../../src/indexer/DisownedNfts.js";
import { makeIndexReader } from "../../../src/indexer/IndexReader.js";
import { PREFIX, walletNftKey } from "../../../src/indexer/indexKeys.js";
import { chainLateRegistryReads } from "../../../src/indexer/lateRegistryReads.js";
import type { IndexReads } from "../../../src/indexer/PendingWrites.js";
import { readTokenMetadata } from "../../../src/indexer/readTokenMetadata.js";
import { readUnderlying } from "../../../src/indexer/readUnderlying.js";
import { readVaultProbes } from "../../../src/indexer/readVaultProbes.js";
import { writeDiscovered } from "../../../src/indexer/writeDiscovered.js";
import { fetchHistoryBlocks } from "../../../src/ingest/rpc/fetchHistoryBlocks.js";
import type { DiscoveryContext, Findings } from "../../../src/positions/discovery/DiscoveryContext.js";
import { lendingTokensIn, POSITION_FINDERS } from "../../../src/positions/discovery/positionFinders.js";
import { findYieldSplitMarkets } from "../../../src/positions/discovery/yieldSplitMarkets.js";
import { readChainPositions } from "../../../src/positions/readChainPositions.js";
import type { Db, Operation } from "../../../src/storage/Level.js";
import { directChainRpc } from "../../support/chainRpc.js";
import { startTestDevnet, type TestDevnet } from "../../support/devnetFixture.js";
import { blockWithLogs, memoryDb } from "../../support/indexerBlocks.js";
import { encodeLog } from "../../unit/decoding/fixtures.js";

/**
 * Position discovery without history (src/positions/discovery/): a service that starts at the head
 * finds a wallet's position candidates by asking the chain at one block. For every seeded wallet of
 * the devnet, what the finders write into an EMPTY index equals what an index of the whole history
 * holds for it (position NFTs, their mints and pools, lending tokens, lending parts, restaking
 * deposits), block numbers aside; and the positions read through those records are the same.
 *
 * The full-history index is built the way the service builds it, without the transport: the
 * service's own history fetch (fetchHistoryBlocks: eth_getLogs and headers) from block 0 to the head,
 * each block planned by the indexer's planBlock over the writes of the blocks before it. That is the
 * whole of what ingest and the indexer do to these views (NATS only carries the blocks between them),
 * at a fraction of a service's start.
 */

const CHAINS = [1, 8453, 10, 57073];
const TRANSFER = toEventSelector("Transfer(address,address,uint256)");
const pad = (n: number) => String(n).padStart(12, "0");
const hex = (n: number | bigint) => `0x${n.toString(16)}`;

interface ChainEnv {
  readonly manifest: ManifestChain;
  readonly config: ChainConfig;
  readonly rpc: ChainRpc;
  readonly close: () => Promise<void>;
  /** Every request this chain's RPC sent, for the cost figures. */
  readonly sent: Array<RpcRequest>;
  readonly block: BlockRef;
  /** The full-history index: every key and value, JSON as LevelDB stores them. */
  readonly reference: Map<string, unknown>;
}

let devnet: TestDevnet;
const envs = new Map<number, ChainEnv>();
const envOf = (id: number) => envs.get(id)!;

const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** The index an ingest of blocks 0..head builds: each block planned by the indexer against the ones before. */
const replayHistory = async (rpc: ChainRpc, chain: ChainConfig, head: number) => {
  const store = new Map<string, unknown>();
  const reads: IndexReads = {
    get: async (key) => store.get(key),
    getMany: async (keys) => keys.map((key) => store.get(key)),
  };
  const blocks = await Effect.runPromise(fetchHistoryBlocks(rpc, { from: 0, to: head }));
  for (const block of blocks) {
    const ops = await planBlock(reads, chain, block, {
      metadata: (tokens) => readTokenMetadata(rpc, tokens),
      underlying: (contracts) => readUnderlying(rpc, contracts),
      vaults: (tokens) => readVaultProbes(rpc, tokens),
    });
    for (const op of ops) {
      if (op.type === "put") store.set(op.key, json(op.value));
      else store.delete(op.key);
    }
  }
  return store;
};

/** Every entry of a LevelDB, as a map. */
const entriesOf = async (db: Db): Promise<Map<string, unknown>> => {
  const out = new Map<string, unknown>();
  for await (const [key, value] of db.iterator()) out.set(key as string, value);
  return out;
};

/**
 * What an index holds for a wallet on a chain in the views discovery writes: the NFTs it holds, where
 * each was minted and its pool (with the pool's per-token entries), the chain's lending tokens, the
 * wallet's lending parts and restaking deposits. Block numbers (when received, seen, created) are
 * left out: a read at one block cannot know them, and no reader needs them.
 */
const walletViews = (index: ReadonlyMap<string, unknown>, wallet: string, chainId: number) => {
  const out = new Map<string, unknown>();
  const take = (key: string) => {
    const value = index.get(key);
    if (value === undefined) return undefined;
    const { block: _block, created_block: _created, ...rest } = value as Record<string, unknown>;
    out.set(key, typeof value === "object" ? rest : value);
    return value;
  };
  const own = (view: string) => `${PREFIX}${view}!${wallet}!${pad(chainId)}!`;
  for (const key of [...index.keys()].sort()) {
    if (key.startsWith(own("wn"))) {
      take(key);
      const [manager, tokenId] = key.slice(own("wn").length).split("!");
      const minted = take(`${PREFIX}nft!${pad(chainId)}!${manager}!${tokenId}`) as
        | { pool: string }
        | undefined;
      if (minted === undefined) continue;
      const pool = take(`${PREFIX}pool!${pad(chainId)}!${minted.pool}`) as
        | { token0: string; token1: string }
        | undefined;
      if (pool === undefined) continue;
      for (const token of [pool.token0, pool.token1])
        take(`${PREFIX}tp!${pad(chainId)}!${token}!${minted.pool}`);
    } else if (
      key.startsWith(`${PREFIX}lt!${pad(chainId)}!`) ||
      key.startsWith(own("lw")) ||
      key.startsWith(own("rs"))
    )
      take(key);
  }
  return out;
};

/** The wallet's NFT ids of the chain's V4 position managers, from its Transfer logs of those contracts (what the orchestrator passes). */
const v4IdsOf = async (env: ChainEnv, wallet: string) => {
  const ids = new Map<string, Array<bigint>>();
  for (const manager of POSITION_FINDERS.nftContracts(env.config)) {
    const logs = await env.rpc.request<ReadonlyArray<{ topics: ReadonlyArray<string> }>>("eth_getLogs", [
      {
        address: manager,
        topics: [TRANSFER, null, `0x${wallet.slice(2).toLowerCase().padStart(64, "0")}`],
        fromBlock: "0x0",
        toBlock: hex(env.block.number),
      },
    ]);
    ids.set(
      manager,
      logs.map((log) => BigInt(log.topics[3]!)),
    );
  }
  return ids;
};

interface Discovered {
  readonly ops: ReadonlyArray<Operation>;
  readonly findings: ReadonlyArray<Findings>;
  /** eth_calls (round trips) and the calls they carried, and the time, of the chain's and the wallet's finders. */
  readonly cost: { readonly chain: Cost; readonly wallet: Cost };
}
interface Cost {
  readonly ethCalls: number;
  readonly calls: number;
  readonly ms: number;
}

/** Calls carried by one aggregate3 eth_call: the length word of its array argument. */
const innerCalls = (request: RpcRequest) => {
  const data = (request.params[0] as { data: string }).data;
  return Number.parseInt(data.slice(10 + 64, 10 + 128), 16);
};

const measure = async <A>(env: ChainEnv, run: () => Promise<A>): Promise<[A, Cost]> => {
  const before = env.sent.length;
  const started = performance.now();
  const result = await run();
  const ms = performance.now() - started;
  const ethCalls = env.sent.slice(before).filter((r) => r.method === "eth_call");
  return [
    result,
    {
      ethCalls: ethCalls.length,
      calls: ethCalls.reduce((sum, r) => sum + innerCalls(r), 0),
      ms: Math.round(ms),
    },
  ];
};

/** Every finder for one wallet on one chain, at the chain's block, into `db`; the V4 ids from its logs. */
const discover = async (env: ChainEnv, db: Db, wallet: string): Promise<Discovered> => {
  const context: DiscoveryContext = { chain: env.config, block: env.block, rpc: env.rpc, db };
  const [chainFound, chainCost] = await measure(env, () =>
    Promise.all(POSITION_FINDERS.chain.map((find) => find(context))),
  );
  const ids = await v4IdsOf(env, wallet);
  const [walletFound, walletCost] = await measure(env, () =>
    Promise.all([
      ...POSITION_FINDERS.wallet.map((find) => find(context, wallet)),
      POSITION_FINDERS.nftIds(context, wallet, ids),
    ]),
  );
  const findings = [...chainFound, ...walletFound];
  const ops = findings.flatMap((f) => f.ops);
  await writeDiscovered(db, undefined, ops);
  return { ops, findings, cost: { chain: chainCost, wallet: walletCost } };
};

beforeAll(async () => {
  devnet = await startTestDevnet();
  const file = await decodeChainsConfigFile(
    JSON.parse(await readFile(devnet.devnet.chainsConfigPath, "utf8")),
  ).pipe(Effect.runPromise);
  await Promise.all(
    CHAINS.map(async (id) => {
      const manifest = devnet.manifest.chains.find((c) => c.chain_id === id)!;
      const config = file.chains.find((c) => c.chain_id === id)!;
      const sent: Array<RpcRequest> = [];
      const { rpc, close } = directChainRpc(manifest.rpc_url, {
        chainId: id,
        onRequest: (r) => sent.push(r),
      });
      const head = await rpc.request<{ number: string; hash: string }>("eth_getBlockByNumber", [
        "latest",
        false,
      ]);
      const block = { number: Number(head.number), hash: head.hash };
      const reference = await replayHistory(rpc, config, block.number);
      envs.set(id, { manifest, config, rpc, close, sent, block, reference });
    }),
  );
}, 300_000);

afterAll(async () => {
  for (const env of envs.values()) await env.close();
  await devnet?.stop();
});

/** The entries of `index` outside the views discovery writes: an index that has the rest of history but not these. */
const VIEWS_FOUND = ["wn!", "nft!", "lt!", "lw!", "rs!"].map((view) => PREFIX + view);
const withoutDiscoveredViews = async (index: ReadonlyMap<string, unknown>): Promise<Db> => {
  const db = memoryDb();
  await db.batch(
    [...index]
      .filter(([key]) => !VIEWS_FOUND.some((prefix) => key.startsWith(prefix)))
      .map(([key, value]) => ({ type: "put" as const, key, value })),
  );
  return db;
};

const viewAbi = parseAbi([
  "function ownerOf(uint256) view returns (address)",
  "function balanceOf(address) view returns (uint256)",
  "function borrowBalanceOf(address) view returns (uint256)",
  "function borrowBalanceStored(address) view returns (uint256)",
  "function collateralBalanceOf(address, address) view returns (uint128)",
  "function stakerStrategyShares(address, address) view returns (uint256)",
  "function transferFrom(address, address, uint256)",
]);

/**
 * Whether the part a full-history record stands for is still there at the chain's block: the NFT
 * still the wallet's, the Comet balance, collateral or cToken debt above zero, the restaking shares
 * above zero. The index keeps a record once seen; discovery can only find what is held now.
 */
const stillHeld = async (env: ChainEnv, wallet: string, key: string): Promise<boolean> => {
  const client = createPublicClient({ transport: http(env.manifest.rpc_url) });
  const read = (address: string, functionName: string, args: ReadonlyArray<unknown>) =>
    client.readContract({
      address: address as Address,
      abi: viewAbi,
      functionName,
      args,
      blockNumber: BigInt(env.block.number),
    } as never) as Promise<bigint | string>;
  const [view, , , a, b] = key.slice(PREFIX.length).split("!") as [string, string, string, string, string];
  if (view === "wn")
    return ((await read(a, "ownerOf", [BigInt(`0x${b}`)])) as string).toLowerCase() === wallet;
  if (view === "rs") return ((await read(a, "stakerStrategyShares", [wallet, b])) as bigint) > 0n;
  if (view !== "lw") throw new Error(`no reading of ${key}`);
  const market = env.reference.get(`${PREFIX}lt!${pad(env.manifest.chain_id)}!${a}`) as
    | { kind: string }
    | undefined;
  if (market?.kind === "ctoken") return ((await read(a, "borrowBalanceStored", [wallet])) as bigint) > 0n;
  if (b !== "-") return ((await read(a, "collateralBalanceOf", [wallet, b])) as bigint) > 0n;
  const supplied = (await read(a, "balanceOf", [wallet])) as bigint;
  const borrowed = (await read(a, "borrowBalanceOf", [wallet])) as bigint;
  return supplied > 0n || borrowed > 0n;
};

const costs = new Map<number, Discovered["cost"]>();

describe("position discovery without history", () => {
  it("behavior: every seeded wallet's records found at the head equal a full-history index's, but for parts emptied since", async () => {
    const differences: Array<string> = [];
    const emptied: Array<string> = [];
    const compared = new Map<string, number>();
    for (const id of CHAINS) {
      const env = envOf(id);
      for (const [role, address] of Object.entries(env.manifest.wallets)) {
        const wallet = address.toLowerCase();
        const db = memoryDb();
        const { ops, findings, cost } = await discover(env, db, wallet);
        if (role === "every_type") costs.set(id, cost);
        expect(findings.filter((f) => f.truncated !== undefined)).toEqual([]);
        const found = walletViews(await entriesOf(db), wallet, id);
        const history = walletViews(env.reference, wallet, id);
        for (const key of new Set([...found.keys(), ...history.keys()])) {
          const view = key.slice(PREFIX.length).split("!")[0]!;
          compared.set(view, (compared.get(view) ?? 0) + 1);
          const a = JSON.stringify(found.get(key));
          const b = JSON.stringify(history.get(key));
          if (a === b) continue;
          if (
            a === undefined &&
            (view === "wn" || view === "lw" || view === "rs") &&
            !(await stillHeld(env, wallet, key))
          )
            emptied.push(`${id} ${role} ${key}`);
          else differences.push(`${id} ${role} ${key}: found ${a}, history ${b}`);
        }
        // What a balance sweep adds to its universe: every lending token of the chain.
        expect(new Set(lendingTokensIn(id, ops))).toEqual(
          new Set(
            [...history.keys()]
              .filter((key) => key.startsWith(`${PREFIX}lt!`))
              .map((key) => key.split("!").at(-1)),
          ),
        );
      }
    }
    expect(differences).toEqual([]);
    // compound_liquidated's Comet collateral, absorbed by the liquidation (docs/devnet.md): the index
    // keeps the record of its SupplyCollateral, the chain holds nothing there any more.
    expect(emptied).toEqual(
      [1, 8453, 10].map((id) => expect.stringMatching(new RegExp(`^${id} compound_liquidated ${PREFIX}lw!`))),
    );
    // Not vacuous: NFTs (V3, V4, Algebra), their mints and pools, lending tokens and parts, restaking.
    for (const view of ["wn", "nft", "pool", "tp", "lt", "lw", "rs"])
      expect(compared.get(view) ?? 0).toBeGreaterThan(0);
    expect(compared.get("wn")).toBeGreaterThanOrEqual(20);
    expect(compared.get("lw")).toBeGreaterThanOrEqual(30);
  });

  it("behavior: every_type's positions read through discovered records equal those read through history", async () => {
    for (const id of [1, 8453, 10]) {
      const env = envOf(id);
      const wallet = env.manifest.wallets.every_type!.toLowerCase();
      const params = { chain: env.config, wallet, block: env.block, publicUrl: "http://test.invalid" };
      const reference = memoryDb();
      await reference.batch([...env.reference].map(([key, value]) => ({ type: "put" as const, key, value })));
      const expected = await readChainPositions(env.rpc, makeIndexReader(reference), params);
      // The rest of history (token touches, pools, metadata) as it is; these views only from discovery.
      const db = await withoutDiscoveredViews(env.reference);
      expect(await readChainPositions(env.rpc, makeIndexReader(db), params)).toEqual(
        expect.not.arrayContaining([expect.objectContaining({ type: "Nft" })]),
      );
      await discover(env, db, wallet);
      const found = await readChainPositions(env.rpc, makeIndexReader(db), params);
      expect(found).toEqual(expected);
      const types = new Set(found.map((p) => p.type));
      for (const type of ["Nft", "NftV4", "Tokenized", "LendingV3", id === 1 ? "LendingV2" : "LendingV2Fork"])
        expect(types, `${type} on ${id}`).toContain(type);
      if (id === 1) expect(types).toContain("RestakeStrategy");
    }
    const figures = [...costs].map(
      ([id, { chain, wallet }]) =>
        `chain ${id}: per chain ${chain.ethCalls} eth_calls (${chain.calls} calls) ${chain.ms} ms; ` +
        `per wallet ${wallet.ethCalls} eth_calls (${wallet.calls} calls) ${wallet.ms} ms`,
    );
    console.log(`every_type discovery cost:\n${figures.join("\n")}`);
    for (const { chain, wallet } of costs.values()) {
      // A few round trips, whatever the wallet holds: lending lists per chain, four kinds of reads per wallet.
      expect(chain.ethCalls).toBeLessThanOrEqual(5);
      expect(wallet.ethCalls).toBeLessThanOrEqual(12);
    }
  });

  it("behavior: configured Pendle markets give the PT, YT and market records the factories' events give", async () => {
    for (const id of [1, 8453, 10]) {
      const env = envOf(id);
      const listed = env.manifest.pendle!.expiries.filter((e) => e.market !== null);
      const db = memoryDb();
      const context: DiscoveryContext = { chain: env.config, block: env.block, rpc: env.rpc, db };
      const { ops } = await findYieldSplitMarkets(
        context,
        // A market twice, and an address that is no market: neither adds anything.
        [...listed.map((e) => e.market!), listed[0]!.market!, env.manifest.tokens.USDC!.address],
      );
      const keys = listed.flatMap((e) => [
        ...[e.pt, e.yt, e.market!].map((token) => `${PREFIX}ys!${pad(id)}!${token.toLowerCase()}`),
        `${PREFIX}ym!${pad(id)}!${e.pt.toLowerCase()}`,
      ]);
      expect(new Map(ops.map((op) => [op.key, op.type === "put" ? op.value : undefined]))).toEqual(
        new Map(keys.map((key) => [key, env.reference.get(key)])),
      );
    }
  });

  it("behavior: a live borrow from a cToken market, and a new market of a PT, that the index never met are recorded as the whole history records them", async () => {
    // A service that started at the head meets a borrow from a market listed before its first block,
    // and a market made for a PT created before it, while the registry backfill has not reached either.
    const env = envOf(1);
    const borrower = env.manifest.wallets.whale!.toLowerCase();
    const comptroller = env.manifest.lending_markets.find((m) => m.kind === "ctoken")!;
    const cToken = comptroller.assets[0]!.supply_token!.toLowerCase();
    const pendle = env.manifest.pendle!;
    const listed = pendle.expiries.find((e) => e.market !== null)!;
    const [pt, yt, market] = [listed.pt, listed.yt, listed.market!].map((a) => a.toLowerCase()) as [
      string,
      string,
      string,
    ];
    const notAMarket = env.manifest.tokens.USDC!.address.toLowerCase();
    const borrow = (from: string, who: string) =>
      encodeLog(
        "event Borrow(address borrower, uint256 borrowAmount, uint256 accountBorrows, uint256 totalBorrows)",
        { borrower: who, borrowAmount: 5n, accountBorrows: 5n, totalBorrows: 5n },
        { address: from },
      );
    const db = memoryDb();
    const ops = await planBlock(
      db,
      env.config,
      blockWithLogs(env.block.number + 1, [
        borrow(cToken, borrower),
        // A look-alike borrow from a token no registry comptroller lists records nothing.
        borrow(notAMarket, borrower),
        encodeLog(
          "event CreateNewMarket(address indexed market, address indexed PT, int256 scalarRoot, int256 initialAnchor, uint256 lnFeeRateRoot)",
          { market, PT: pt, scalarRoot: 1n, initialAnchor: 1n, lnFeeRateRoot: 0n },
          { address: pendle.market_factory },
        ),
      ]),
      {
        metadata: (tokens) => readTokenMetadata(env.rpc, tokens),
        underlying: (contracts) => readUnderlying(env.rpc, contracts),
        vaults: (tokens) => readVaultProbes(env.rpc, tokens),
        late: chainLateRegistryReads((calls) => aggregate3(env.rpc, calls, { block: env.block }), env.config),
      },
    );
    const written = new Map(
      ops.flatMap((op) => (op.type === "put" ? [[op.key, json(op.value)] as const] : [])),
    );
    const key = (view: string, ...parts: Array<string>) => [PREFIX + view, pad(1), ...parts].join("!");
    const expected = [key("lt", cToken), ...[pt, yt, market].map((token) => key("ys", token)), key("ym", pt)];
    for (const k of expected) expect(written.get(k), k).toEqual(env.reference.get(k));
    expect(written.get(key("lt", cToken))).toMatchObject({
      kind: "ctoken",
      market: comptroller.address.toLowerCase(),
    });
    expect(written.has(`${PREFIX}lw!${borrower}!${pad(1)}!${cToken}!-`)).toBe(true);
    expect(written.has(key("lt", notAMarket))).toBe(false);
    expect(written.has(`${PREFIX}lw!${borrower}!${pad(1)}!${notAMarket}!-`)).toBe(false);
  });

  it("behavior: an NFT the wallet sold after discovery read it shows no position at a later block", async () => {
    const env = envOf(1);
    const wallet = env.manifest.wallets.every_type!.toLowerCase() as Address;
    const db = await withoutDiscoveredViews(env.reference);
    await discover(env, db, wallet);
    const sold = env.manifest.liquidity_positions.filter(
      (p) => p.purpose === "every_type" && (p.kind === "v3" || p.kind === "v4"),
    );
    expect(sold.map((p) => p.kind).sort()).toEqual(["v3", "v4"]);
    const test = createTestClient({ mode: "anvil", transport: http(env.manifest.rpc_url) });
    const snapshot = await test.snapshot();
    try {
      await test.impersonateAccount({ address: wallet });
      const sender = createWalletClient({ account: wallet, transport: http(env.manifest.rpc_url) });
      const publicClient = createPublicClient({ transport: http(env.manifest.rpc_url) });
      // The block of the last sale, from its receipt: viem caches getBlockNumber for 4 s, and a
      // number cached while waiting for that receipt can be the block before it.
      let soldAt = 0;
      for (const position of sold) {
        const hash = await sender.writeContract({
          chain: null,
          address: position.position_manager as Address,
          abi: viewAbi,
          functionName: "transferFrom",
          args: [wallet, "0x000000000000000000000000000000000000dEaD", BigInt(position.token_id!)],
        });
        const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
        expect(receipt.status).toBe("success");
        soldAt = Math.max(soldAt, Number(receipt.blockNumber));
      }
      const later = { number: soldAt };
      const disowned = new DisownedNfts();
      const tokenIds = (block: BlockRef) =>
        readChainPositions(env.rpc, makeIndexReader(db), {
          chain: env.config,
          wallet,
          block,
          publicUrl: "http://test.invalid",
          disowned,
        }).then((positions) =>
          positions.flatMap((p) =>
            p.type === "Nft" || p.type === "NftV4" ? p.positions.map((e) => BigInt(e.token_id)) : [],
          ),
        );
      const ids = sold.map((p) => BigInt(p.token_id!));
      // The index still says the wallet holds both: at the block discovery read they show, later not.
      expect(await tokenIds(env.block)).toEqual(expect.arrayContaining(ids));
      expect(disowned.size).toBe(0);
      expect(await tokenIds(later)).toEqual(expect.not.arrayContaining([ids[0]]));
      expect(await tokenIds(later)).toEqual(expect.not.arrayContaining([ids[1]]));
      // The read reports both stale records; the indexer's next batch deletes them, and the wallet's
      // other position NFTs stay.
      const staleKeys = sold.map((p) =>
        walletNftKey(wallet, 1, p.position_manager!.toLowerCase(), BigInt(p.token_id!)),
      );
      const kept = (await makeIndexReader(db).positionNfts(wallet)).length - staleKeys.length;
      const deletes = await disowned.plan(db);
      expect(deletes.map((op) => op.key).sort()).toEqual([...staleKeys].sort());
      await db.batch([...deletes]);
      expect(await makeIndexReader(db).positionNfts(wallet)).toHaveLength(kept);
      expect(await tokenIds(later)).toEqual(expect.not.arrayContaining(ids));
    } finally {
      await test.stopImpersonatingAccount({ address: wallet });
      await test.revert({ id: snapshot });
    }
  });
});
