import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect, Exit, Layer, Scope } from "effect";
import { decodeLogs } from "../src/decoding/index.js";
import { tokenTouches } from "../src/decoding/tokenTouches.js";
import { walletTokenKey, walletTokenView } from "../src/indexer/indexKeys.js";
import { PendingWrites } from "../src/indexer/PendingWrites.js";
import { normalizeLiveBlock } from "../src/ingest/normalizeBlock.js";
import { type Db, KeyPresences, Level, layer } from "../src/storage/Level.js";
import { lruHits } from "./lib/lruHits.js";
import { median } from "./lib/stats.js";
import { BASE } from "./replay/chainProfiles.js";
import { makeBlock } from "./replay/syntheticChain.js";

const CHAIN_ID = 8453;
/** Wallet-token keys in each store before the blocks: an index some weeks old. */
const EXISTING = Number(process.env.BENCH_INDEX_KEYS ?? 2_000_000);
/** Base-sized blocks planned by each arm, in alternating chunks. */
const BLOCKS = Number(process.env.BENCH_INDEX_BLOCKS ?? 6_000);
const CHUNK = 500;
/** Entries of the cache whose hits are timed: what the index caches hold on a busy chain. */
const LRU_ENTRIES = 100_000;
/** Blocks planned before their writes go out as one batch, as the indexer does while catching up. */
const BATCH_BLOCKS = 32;

/** Each block's wallet-token keys, as the indexer derives them (its logs decoded, its touches found). */
const blockTouchKeys = (count: number): ReadonlyArray<ReadonlyArray<string>> =>
  Array.from({ length: count }, (_, i) => {
    const made = makeBlock(BASE, 1_000_000 + i, 0, 0, 1_800_000_000 + i);
    const block = normalizeLiveBlock(CHAIN_ID, JSON.parse(made.full), JSON.parse(made.receipts), null);
    return tokenTouches(block, {}, decodeLogs(block.logs))
      .filter((touch) => touch.standard !== "native")
      .map((touch) => walletTokenKey(touch.wallet, CHAIN_ID, touch.token_address));
  });

const address = (n: number, salt: number) =>
  `0x${salt.toString(16).padStart(8, "0")}${n.toString(16).padStart(32, "0")}`;

/** A store opened as the service opens it, watching `watched`, with EXISTING wallet-token keys. */
const openStore = async (dir: string, watched: ReadonlyArray<string>) => {
  const scope = await Effect.runPromise(Scope.make());
  const context = await Effect.runPromise(Layer.buildWithScope(layer(dir, watched), scope));
  const db = context.unsafeMap.get(Level.key) as Db;
  const presence = (context.unsafeMap.get(KeyPresences.key) as KeyPresences["Type"]).get(walletTokenView);
  for (let at = 0; at < EXISTING; at += 10_000)
    await db.batch(
      Array.from({ length: Math.min(10_000, EXISTING - at) }, (_, i) => ({
        type: "put" as const,
        key: walletTokenKey(address(at + i, 1), CHAIN_ID, address(at + i, 2)),
        value: { standard: "erc20", first_block: 1 },
      })),
    );
  return { db, presence, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) };
};

/**
 * The wallet-token reads of planning a block (each of its keys asked, the absent ones written as
 * new), for `blocks`, batched as the indexer batches them: CPU ms per block, LevelDB's threads
 * included.
 */
const plan = async (
  store: Awaited<ReturnType<typeof openStore>>,
  blocks: ReadonlyArray<ReadonlyArray<string>>,
) => {
  const pending = new PendingWrites(store.db, store.presence);
  const before = process.cpuUsage();
  for (let i = 0; i < blocks.length; i++) {
    const keys = blocks[i]!;
    const found = await pending.getMany([...keys]);
    pending.add(
      keys.flatMap((key, j) =>
        found[j] === undefined
          ? [{ type: "put" as const, key, value: { standard: "erc20", first_block: i } }]
          : [],
      ),
    );
    if ((i + 1) % BATCH_BLOCKS === 0 || i === blocks.length - 1) {
      await store.db.batch([...pending.ops]);
      pending.clear();
    }
  }
  const cpu = process.cpuUsage(before);
  return (cpu.user + cpu.system) / 1000 / blocks.length;
};

/**
 * The indexer's wallet-token lookups, with and without the filter of KeyPresence.ts: two stores
 * holding the same EXISTING keys (one watching the wallet-token view, as the service opens it, one
 * not), then the same Base-sized synthetic blocks planned against each, in alternating chunks of
 * CHUNK blocks so both arms share the machine's noise. Reports the CPU per block of each arm and
 * their ratio, and how many of a block's keys were absent.
 */
export const indexLookupsBench = async () => {
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-lookups-"));
  try {
    const filtered = await openStore(join(dir, "filtered"), [walletTokenView]);
    const plain = await openStore(join(dir, "plain"), []);
    try {
      await filtered.presence!.scanEnded;
      const blocks = blockTouchKeys(BLOCKS);
      const keysPerBlock = blocks.reduce((sum, keys) => sum + keys.length, 0) / blocks.length;
      const withFilter: Array<number> = [];
      const without: Array<number> = [];
      for (let at = 0; at < blocks.length; at += CHUNK) {
        const chunk = blocks.slice(at, at + CHUNK);
        // Each arm goes first every other chunk.
        const order = (at / CHUNK) % 2 === 0 ? [filtered, plain] : [plain, filtered];
        for (const store of order) (store === filtered ? withFilter : without).push(await plan(store, chunk));
      }
      const on = median(withFilter.slice(1));
      const off = median(without.slice(1));
      const hits = lruHits(LRU_ENTRIES);
      return {
        name: "index-lookups",
        lines: [
          `${BLOCKS} Base-sized blocks' wallet-token keys (${keysPerBlock.toFixed(0)} a block) planned against a LevelDB holding ${EXISTING.toLocaleString("en-US")} of them, the absent ones written, ${BATCH_BLOCKS} blocks a batch`,
          `CPU per block (median of ${withFilter.length - 1} chunks of ${CHUNK}, the first left out): ${on.toFixed(3)} ms with the key-presence filter, ${off.toFixed(3)} ms without: ratio ${(on / off).toFixed(2)}, ${(off - on).toFixed(3)} ms a block saved; the filter holds ${filtered.presence!.added.toLocaleString("en-US")} keys in ${(filtered.presence!.bytes / 1024 ** 2).toFixed(1)} MiB`,
          `a hit in an index cache (Lru) of ${LRU_ENTRIES.toLocaleString("en-US")} entries: ${hits.lruNs.toFixed(0)} ns, against ${hits.mapNs.toFixed(0)} ns on a bare Map of the same entries: ratio ${(hits.lruNs / hits.mapNs).toFixed(2)}  target <= 2`,
        ],
      };
    } finally {
      await filtered.close();
      await plain.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
