import { type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Effect, Exit, Scope } from "effect";
import type { ChainConfig } from "../src/chains/ChainsConfig.js";
import type { ChainBlock } from "../src/domain/ChainBlock.js";
import { openBucket } from "../src/nats/JetStreamSetup.js";
import { type AddressBook, makeAddressBook } from "../src/webhooks/notifier/AddressBook.js";
import { matchBlock } from "../src/webhooks/notifier/matchBlock.js";
import { indexKey } from "../src/webhooks/store/kvKeys.js";
import { WebhookRecord } from "../src/webhooks/WebhookRecord.js";
import { startTestNats } from "../test/support/natsServer.js";
import { syntheticBlock } from "../test/support/syntheticBlocks.js";
import { mainThreadCpuMs } from "./lib/cpu.js";
import { median } from "./lib/stats.js";

const SIZES = (process.env.BENCH_NOTIFIER_SIZES ?? "1000,100000,1000000").split(",").map(Number);
const WEBHOOKS = Number(process.env.BENCH_NOTIFIER_WEBHOOKS ?? 1000);
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

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const webhookId = (w: number) => `wh${String(w).padStart(6, "0")}`;
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

/**
 * The webhook notifier against the number of watched addresses: `size` addresses spread over
 * WEBHOOKS `transactions` webhooks in the real `webhook_addresses` bucket, loaded by the real
 * AddressBook (its live heap per 100k addresses), then matchBlock over blocks of 100 transfers, half
 * of them to a watched address (CPU per block). The per-block cost must not grow with `size`: a
 * block costs one lookup per address it involves.
 */
export const notifierBench = async () => {
  const lines: Array<string> = [];
  const perBlock: Array<number> = [];
  for (const size of SIZES) {
    const nats = await startTestNats();
    const nc = await nats.connectAs("api");
    try {
      const index = await Effect.runPromise(openBucket(nc, "webhook_addresses"));
      const value = JSON.stringify({ rev: 1, member: true });
      const loadStart = performance.now();
      // A put the broker acknowledges late (a loaded host) is sent again (the same value, so
      // idempotent), up to 5 times.
      const put = async (n: number, tries = 5): Promise<unknown> =>
        index
          .put(indexKey(address(n), webhookId(n % WEBHOOKS)), value)
          .catch((error) => (tries > 1 ? put(n, tries - 1) : Promise.reject(error)));
      for (let start = 1; start <= size; start += 5_000) {
        const puts: Array<Promise<unknown>> = [];
        for (let n = start; n < Math.min(size + 1, start + 5_000); n++) puts.push(put(n));
        await Promise.all(puts);
      }
      const putSeconds = (performance.now() - loadStart) / 1000;
      const bookStart = performance.now();
      const bookScope = await Effect.runPromise(Scope.make());
      let book: AddressBook | undefined = await Effect.runPromise(
        Scope.extend(makeAddressBook(index), bookScope),
      );
      const bookSeconds = (performance.now() - bookStart) / 1000;

      const now = new Date().toISOString();
      const records = new Map(
        Array.from({ length: WEBHOOKS }, (_, w) => [
          webhookId(w),
          new WebhookRecord({
            id: webhookId(w),
            team_id: "bench",
            name: "bench",
            type: "transactions",
            url: "https://example.com/hook",
            active: true,
            created_at: now,
            updated_at: now,
            chain_ids: null,
            transaction_type: null,
            counterparty: null,
            activity_type: null,
            asset_type: null,
            token_address: null,
            secrets: { current: "x", previous: null },
          }),
        ]),
      );
      const deps = {
        webhooksFor: (address: string) => book!.webhooksFor(address),
        watchedAddresses: () => book!.watchedAddresses(),
        recordOf: (id: string) => records.get(id),
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
      perBlock.push(median(samples));
      // The book's memory: live memory with it, then without it (its watch stopped, its table dropped).
      await Effect.runPromise(Scope.close(bookScope, Exit.void));
      const withBook = liveHeap();
      book = undefined;
      const bytes = withBook - liveHeap();
      lines.push(
        `${size.toLocaleString("en")} watched addresses over ${WEBHOOKS} webhooks: ${median(samples).toFixed(0)} µs CPU per block of ${TXS_PER_BLOCK} transfers, of which the main thread ${median(mainSamples).toFixed(0)} µs (garbage-collection pauses ${median(gcSamples).toFixed(0)} µs; full collections ${majorGcMs.toFixed(0)} ms over the 3 rounds), the rest V8's and libuv's helper threads (${matched / (3 * BLOCKS)} webhooks matched per block); address book ${(bytes / 1024 / 1024).toFixed(1)} MB live (heap and ArrayBuffers), ${(((bytes / size) * 100_000) / 1024 / 1024).toFixed(1)} MB per 100k addresses, loaded in ${bookSeconds.toFixed(1)} s (KV filled in ${putSeconds.toFixed(1)} s)`,
      );
    } finally {
      await nc.close();
      await nats.stop();
    }
  }
  lines.push(
    `per-block cost at the largest size over the smallest: ${(perBlock.at(-1)! / perBlock[0]!).toFixed(2)}  target: flat (about 1)`,
  );
  return { name: "notifier", lines };
};
