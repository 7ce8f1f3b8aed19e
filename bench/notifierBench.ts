import { type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Effect, Exit, Scope } from "effect";
import type { ChainConfig } from "../src/chains/ChainsConfig.js";
import type { ChainBlock } from "../src/domain/ChainBlock.js";
import { openBucket } from "../src/nats/JetStreamSetup.js";
import { type AddressBook, makeAddressBook } from "../src/webhooks/notifier/AddressBook.js";
import { matchBlock } from "../src/webhooks/notifier/matchBlock.js";
import { startTestNats } from "../test/support/natsServer.js";
import { syntheticBlock } from "../test/support/syntheticBlocks.js";
import { webhookRecord } from "../test/support/webhookRecordFixture.js";
import { mainThreadCpuMs } from "./lib/cpu.js";
import { timeListChanges } from "./lib/listChangeTimes.js";
import { median } from "./lib/stats.js";
import { benchAddress, benchWebhookId, fillWatchedLists } from "./lib/watchedLists.js";

const SIZES = (process.env.BENCH_NOTIFIER_SIZES ?? "1000,100000,1000000,10000000").split(",").map(Number);
/** Webhooks the addresses are spread over: 10M fills 100 lists of 100,000 (WEBHOOK_MAX_ADDRESSES' ceiling). */
const WEBHOOKS = Number(process.env.BENCH_NOTIFIER_WEBHOOKS ?? 100);
const TXS_PER_BLOCK = 100;
const BLOCKS = 500;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
/** Live memory after forced collections: V8's heap and the ArrayBuffers outside it (typed arrays' storage). */
const liveHeap = () => {
  gc();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};

/** Wall time of the garbage collections V8 reports while `work` runs, ms (its pauses, per kind). */
const gcPauses = async (work: () => Promise<void>) => {
  const byKind = { minor: 0, major: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      // NODE_PERFORMANCE_GC_MAJOR = 4 (mark-compact); the other kinds are young-generation or incremental steps.
      const kind =
        (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === 4 ? "major" : "minor";
      byKind[kind] += entry.duration;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  await work();
  // Entries are delivered asynchronously, on a timer: let the last ones arrive.
  await new Promise((r) => setTimeout(r, 50));
  observer.disconnect();
  return byKind;
};

const address = benchAddress;
/** Watched addresses are 1..size; unwatched ones live far above. */
const UNWATCHED = 0x1000_0000;

/** A live block of `TXS_PER_BLOCK` native transfers, half of them to a watched address. */
const block = (number: number, size: number): ChainBlock => {
  const base = syntheticBlock(1, number, address(UNWATCHED + number), address(1));
  const tx = base.transactions[0];
  return {
    ...base,
    transactions: Array.from({ length: TXS_PER_BLOCK }, (_, i) => ({
      ...tx,
      hash: `${tx.hash.slice(0, -6)}${i.toString(16).padStart(6, "0")}`,
      index: i,
      from: address(UNWATCHED + number * TXS_PER_BLOCK + i),
      to: i % 2 === 0 ? address(1 + ((number * TXS_PER_BLOCK + i) % size)) : address(UNWATCHED - 1 - i),
    })),
  } as unknown as ChainBlock;
};

const chain = { chain_id: 1, wrapped_native: undefined } as unknown as ChainConfig;

/** One size's figures. */
interface SizeFigures {
  readonly size: number;
  readonly loadSeconds: number;
  readonly fillSeconds: number;
  readonly liveBytes: number;
  readonly rssBytes: number;
  readonly perBlockUs: number;
  readonly mainUs: number;
  readonly gcUs: number;
  readonly majorGcMs: number;
  readonly matchedPerBlock: number;
  readonly changes: Awaited<ReturnType<typeof timeListChanges>>;
}

const records = () => {
  return new Map(
    Array.from({ length: WEBHOOKS }, (_, w) => [
      benchWebhookId(w),
      webhookRecord({ id: benchWebhookId(w), team_id: "bench", name: "bench", type: "transactions" }),
    ]),
  );
};

/** CPU per block of `matchBlock` over BLOCKS blocks, median of 3 rounds after an untimed one. */
const perBlockCpu = async (book: AddressBook, size: number) => {
  const byId = records();
  const deps = {
    webhooksFor: book.webhooksFor,
    watchedAddresses: book.watchedAddresses,
    recordOf: (id: string) => byId.get(id),
    readBalances: async () => new Map(),
    publicUrl: "http://127.0.0.1",
  };
  const blocks = Array.from({ length: BLOCKS }, (_, i) => block(1_000 + i, size));
  let matched = 0;
  // A whole untimed round first: the first size of a run otherwise pays the process's own
  // warm-up (compilation, start-up garbage) and measured up to 1.7x the same size run alone.
  for (const b of blocks) await matchBlock(deps, chain, b);
  const samples: Array<number> = [];
  const mainSamples: Array<number> = [];
  const gcSamples: Array<number> = [];
  let majorGcMs = 0;
  for (let round = 0; round < 3; round++) {
    const cpu = process.cpuUsage();
    const main = mainThreadCpuMs();
    const pauses = await gcPauses(async () => {
      for (const b of blocks) matched += (await matchBlock(deps, chain, b)).length;
    });
    const used = process.cpuUsage(cpu);
    samples.push((used.user + used.system) / BLOCKS);
    mainSamples.push(((mainThreadCpuMs() - main) * 1000) / BLOCKS);
    gcSamples.push(((pauses.minor + pauses.major) * 1000) / BLOCKS);
    majorGcMs += pauses.major;
  }
  return {
    perBlockUs: median(samples),
    mainUs: median(mainSamples),
    gcUs: median(gcSamples),
    majorGcMs,
    matchedPerBlock: matched / (3 * BLOCKS),
  };
};

/** Loads, matches and changes `size` watched addresses on a nats-server of its own. */
const measureSize = async (size: number): Promise<SizeFigures> => {
  const nats = await startTestNats();
  const nc = await nats.connectAs("api");
  const scope = await Effect.runPromise(Scope.make());
  try {
    const webhooks = await Effect.runPromise(openBucket(nc, "webhooks"));
    const fillSeconds = await fillWatchedLists(webhooks, size, WEBHOOKS);
    const liveBefore = liveHeap();
    const rssBefore = process.memoryUsage().rss;
    const loadStart = performance.now();
    const book = await Effect.runPromise(Scope.extend(makeAddressBook(webhooks), scope));
    const loadSeconds = (performance.now() - loadStart) / 1000;
    const rssBytes = process.memoryUsage().rss - rssBefore;
    // What the loaded book holds: its table, its packed lists, its watch (no list's text).
    const liveBytes = liveHeap() - liveBefore;
    const cpu = await perBlockCpu(book, size);
    const changes = await timeListChanges(webhooks, book);
    return { size, loadSeconds, fillSeconds, liveBytes, rssBytes, ...cpu, changes };
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void));
    await nc.close();
    await nats.stop();
  }
};

const MB = 1024 * 1024;

/** One size as a line of the report. */
const describe = (f: SizeFigures) =>
  `${f.size.toLocaleString("en")} watched addresses in ${WEBHOOKS} lists: loaded in ${f.loadSeconds.toFixed(2)} s (lists stored in ${f.fillSeconds.toFixed(1)} s); ${(f.liveBytes / MB).toFixed(1)} MB live, ${(f.liveBytes / f.size).toFixed(0)} bytes an address (RSS ${f.rssBytes >= 0 ? "+" : ""}${(f.rssBytes / MB).toFixed(0)} MB over the load); ${f.perBlockUs.toFixed(0)} µs CPU per block of ${TXS_PER_BLOCK} transfers, of which the main thread ${f.mainUs.toFixed(0)} µs (garbage-collection pauses ${f.gcUs.toFixed(0)} µs; full collections ${f.majorGcMs.toFixed(0)} ms over the 3 rounds; ${f.matchedPerBlock} webhooks matched per block); ${f.changes.changed.toLocaleString("en")} addresses added in ${f.changes.add.stored.toFixed(2)} s stored, ${f.changes.add.applied.toFixed(2)} s applied by the book, removed in ${f.changes.remove.stored.toFixed(2)} s stored, ${f.changes.remove.applied.toFixed(2)} s applied`;

/**
 * The webhook notifier against the number of watched addresses: `size` addresses spread over
 * WEBHOOKS `transactions` webhooks' address lists in the real `webhooks` bucket (one value per
 * webhook, as the store writes them), loaded by the real AddressBook (load time, live memory per
 * address), then matchBlock over blocks of 100 transfers, half of them to a watched address (CPU
 * per block), then 100,000 addresses added to a watched webhook and removed again through the real
 * store (until the book applied each). The per-block cost must not grow with `size`: a block costs
 * one lookup per address it involves.
 */
export const notifierBench = async () => {
  const figures: Array<SizeFigures> = [];
  for (const size of SIZES) figures.push(await measureSize(size));
  const first = figures[0]!;
  const last = figures.at(-1)!;
  return {
    name: "notifier",
    lines: [
      ...figures.map(describe),
      `per-block cost at the largest size over the smallest: ${(last.perBlockUs / first.perBlockUs).toFixed(2)}  target: flat (about 1)`,
      `memory at the largest size: ${(last.liveBytes / last.size).toFixed(0)} bytes an address  target: at most about 100`,
    ],
  };
};
