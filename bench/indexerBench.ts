import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import { jetstream } from "@nats-io/jetstream";
import { Context, Effect, Exit, Fiber, Layer, Logger, LogLevel, Scope } from "effect";
import { loadChainsFile } from "../src/chains/Chains.js";
import { DisownedNfts } from "../src/indexer/DisownedNfts.js";
import { IndexCache } from "../src/indexer/IndexCache.js";
import { runIndexer } from "../src/indexer/Indexer.js";
import { walletTokenView } from "../src/indexer/indexKeys.js";
import { blockSubject } from "../src/ingest/BlockPublisher.js";
import { encodeBlockEvent } from "../src/ingest/chainEventCodec.js";
import * as Storage from "../src/storage/Level.js";
import { startTestNats } from "../test/support/natsServer.js";
import { writeChainsFile } from "../test/support/serviceHarness.js";
import { messageOf } from "./lib/blockMessages.js";
import { threadRunMs } from "./lib/cpu.js";
import { FIREHOSE } from "./replay/chainProfiles.js";

/** Blocks indexed before the first timed round, and in each timed round. */
const WARM_BLOCKS = Number(process.env.BENCH_INDEXER_WARM ?? 1_000);
const ROUND_BLOCKS = Number(process.env.BENCH_INDEXER_ROUND ?? 1_500);
/** Blocks indexed between the two rounds, untimed: the second round runs on an index this much larger. */
const GROW_BLOCKS = Number(process.env.BENCH_INDEXER_GROW ?? 3_500);
const CHAIN_ID = 8453;
const FIRST_BLOCK = 30_000_000;

/**
 * `npm run bench -- indexer`: the API worker's indexer on its own (runIndexer, this process) over
 * Base-sized blocks already in a real nats-server's CHAIN_EVENTS, into a real LevelDB: CPU per block
 * on the main thread and on every other (V8's collector, libuv's pool, LevelDB's compaction), the
 * garbage collector's pauses. Two rounds, in one run: after WARM_BLOCKS, and after GROW_BLOCKS
 * more, whose ratio shows what a larger index costs each block (LevelDB compacts more of it).
 * chain-scale's API stage times the whole API process; what it spends beyond these figures is the
 * rest of that process. Token metadata is not read from a node here (no client), as after warm-up
 * the service reads it for a block's new tokens only.
 */
export const indexerBench = async () => {
  // A round is timed from the block before it: at least one block comes first.
  if (![WARM_BLOCKS, ROUND_BLOCKS].every((n) => Number.isSafeInteger(n) && n >= 1))
    throw new Error("BENCH_INDEXER_WARM and BENCH_INDEXER_ROUND must be whole numbers of blocks, 1 or more");
  if (!Number.isSafeInteger(GROW_BLOCKS) || GROW_BLOCKS < 0)
    throw new Error("BENCH_INDEXER_GROW must be a whole number of blocks");
  const lines: Array<string> = [];
  const total = WARM_BLOCKS + ROUND_BLOCKS + GROW_BLOCKS + ROUND_BLOCKS;
  const nats = await startTestNats();
  const dir = await mkdtemp(join(tmpdir(), "svc-indexer-bench-"));
  const registry = await Effect.runPromise(
    loadChainsFile(
      await writeChainsFile(dir, [{ chainId: CHAIN_ID, name: "base", rpcUrl: "http://127.0.0.1:1" }]),
    ),
  );
  const js = jetstream(await nats.connectAs("ingest"));
  for (let i = 0; i < total; i++) {
    const block = messageOf(FIREHOSE, FIRST_BLOCK + i);
    for (const message of encodeBlockEvent(block, `${CHAIN_ID}:${block.hash}`, 8 * 1024 * 1024))
      await js.publish(blockSubject(CHAIN_ID), message.data, {
        msgID: message.msgID,
        ...(message.headers === undefined ? {} : { headers: message.headers }),
      });
  }
  const levelDir = join(dir, "leveldb");
  // Opened as the service opens it (its write buffer, the key presence of the wallet-token view).
  const scope = await Effect.runPromise(Scope.make());
  const storage = await Effect.runPromise(
    Layer.buildWithScope(Storage.layer(levelDir, [walletTokenView]), scope).pipe(
      Logger.withMinimumLogLevel(LogLevel.Error),
    ),
  );
  const db = Context.get(storage, Storage.Level);
  const presence = Context.get(storage, Storage.KeyPresences).get(walletTokenView)!;
  await presence.scanEnded;
  let pauses = 0;
  // The collector's entries reach the observer a little after the pause: one right at a round's
  // edge may be counted in the time beside it. Over 1,500 blocks that is noise.
  let counting = false;
  const observer = new PerformanceObserver((list) => {
    if (counting) for (const entry of list.getEntries()) pauses += entry.duration;
  });
  observer.observe({ entryTypes: ["gc"] });
  /** The round's first and last block, and what is read when each is applied. */
  const rounds = [
    { from: FIRST_BLOCK + WARM_BLOCKS, label: `after ${WARM_BLOCKS.toLocaleString("en-US")} blocks` },
    {
      from: FIRST_BLOCK + WARM_BLOCKS + ROUND_BLOCKS + GROW_BLOCKS,
      label: `after ${(WARM_BLOCKS + ROUND_BLOCKS + GROW_BLOCKS).toLocaleString("en-US")} blocks`,
    },
  ].map((round) => ({ ...round, to: round.from + ROUND_BLOCKS - 1 }));
  /** Taken when a mark block is applied: each thread's CPU and the clock. */
  type Reading = { readonly threads: Record<string, number>; readonly at: number };
  const readings = new Map<number, Reading>();
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  // A round is timed from the batch that applied the block before it to the one that applied its
  // last: a batch holds up to 100 blocks, so either end may be a few dozen blocks off, alike.
  const marks = new Set(rounds.flatMap((round) => [round.from - 1, round.to]));
  const fiber = Effect.runFork(
    runIndexer({
      nc: await nats.connectAs("api"),
      db,
      registry,
      client: () => undefined,
      cache: new IndexCache(),
      presence,
      disowned: new DisownedNfts(),
      onApplied: (_chain, number) => {
        if (!marks.has(number)) return;
        readings.set(number, { threads: threadRunMs(process.pid), at: performance.now() });
        counting = rounds.some((round) => round.from - 1 === number);
        if (number === rounds.at(-1)!.to) finish();
      },
    }),
  );
  // The indexer restarts itself after a failure; a run that never gets to the last block ends here.
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      finished,
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error("the indexer did not reach the last block in 10 minutes")),
          600_000,
        );
      }),
    ]);
  } finally {
    // Reached or not, the indexer, its store and the server go.
    clearTimeout(timer);
    observer.disconnect();
    await Effect.runPromise(Fiber.interrupt(fiber));
    await Effect.runPromise(Scope.close(scope, Exit.void));
    await nats.stop();
  }
  const main = String(process.pid);
  lines.push(
    `${ROUND_BLOCKS.toLocaleString("en-US")} base-sized blocks (${FIREHOSE.txPerBlock} transactions) a round, read from CHAIN_EVENTS and indexed by the indexer alone:`,
  );
  const cpuPerBlock: Array<number> = [];
  for (const round of rounds) {
    const start = readings.get(round.from - 1)!;
    const end = readings.get(round.to)!;
    const ms = (tid: string) => (end.threads[tid] ?? 0) - (start.threads[tid] ?? 0);
    const others = Object.keys(end.threads)
      .filter((tid) => tid !== main)
      .map(ms)
      .sort((a, b) => b - a);
    const otherMs = others.reduce((sum, v) => sum + v, 0);
    const per = (v: number) => (v / ROUND_BLOCKS).toFixed(2);
    cpuPerBlock.push((ms(main) + otherMs) / ROUND_BLOCKS);
    lines.push(
      `${round.label}: ${per(ms(main) + otherMs)} ms of CPU a block: main thread ${per(ms(main))}, other threads ${per(otherMs)} (the busiest of them ${per(others[0] ?? 0)}: LevelDB's compaction thread, the last one made, in every run checked); ` +
        `${per(end.at - start.at)} ms a block of wall time`,
    );
  }
  lines.push(
    `the larger index over the smaller, CPU a block: ${(cpuPerBlock[1]! / cpuPerBlock[0]!).toFixed(2)}; the garbage collector's pauses over both rounds: ${(pauses / (2 * ROUND_BLOCKS)).toFixed(3)} ms a block (in the main thread's figure)`,
  );
  return { name: "indexer", lines };
};
