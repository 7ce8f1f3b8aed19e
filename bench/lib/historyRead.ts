import { Effect, Logger, LogLevel, Schedule } from "effect";
import type { ChainRpc } from "../../src/chains/rpc/ChainRpc.js";
import { fetchHistoryBlocks } from "../../src/ingest/rpc/fetchHistoryBlocks.js";

/** Blocks per history step at most, as the ingest role sets it (`historyRange` in ingestRole.ts). */
const HISTORY_STEP = 500;
/** How the follower tries a failed step again (ChainFollower.ts): 200 ms doubling, at most 10 s apart. */
const STEP_RETRY = Schedule.exponential("200 millis").pipe(Schedule.union(Schedule.spaced("10 seconds")));

/** What one history read gave, and what it cost beyond the calls a proxy counts. */
export interface HistoryRead {
  readonly ms: number;
  readonly blocks: number;
  readonly logs: number;
  readonly lastHash: string;
  /** Steps that failed and were tried again, as the follower counts them in `rpc_errors`. */
  readonly failedSteps: number;
  readonly lastError: string | undefined;
  /** False when the read was given up at its time limit. */
  readonly finished: boolean;
}

/**
 * Blocks `from`..`to` read as the ingest follower reads history: steps of at most 500 blocks, no
 * more than the logs range the chain's endpoints take, each step one fetchHistoryBlocks (eth_getLogs
 * in ranges the node accepts, then the headers in batches), a failed step tried again on the
 * follower's schedule; given up after `limitMs`, so a read that never recovers ends the flow, not
 * the benchmark.
 */
export const readHistoryAsIngest = async (
  rpc: ChainRpc,
  from: number,
  to: number,
  limitMs: number,
): Promise<HistoryRead> => {
  let blocks = 0;
  let logs = 0;
  let lastHash = "";
  let failedSteps = 0;
  let lastError: string | undefined;
  const step = (start: number) =>
    Effect.suspend(() => {
      const end = Math.min(to, start + Math.min(HISTORY_STEP, rpc.logsRange.size) - 1);
      return Effect.map(fetchHistoryBlocks(rpc, { from: start, to: end }), (read) => ({ end, read }));
    }).pipe(
      Effect.tapError((error) =>
        Effect.sync(() => {
          failedSteps++;
          lastError = error.message;
        }),
      ),
      Effect.retry({ schedule: STEP_RETRY }),
    );
  const read = Effect.gen(function* () {
    let cursor = from;
    while (cursor <= to) {
      const { end, read } = yield* step(cursor);
      blocks += read.length;
      for (const block of read) logs += block.logs.length;
      lastHash = read.at(-1)?.hash ?? lastHash;
      cursor = end + 1;
    }
  });
  const started = performance.now();
  const exit = await Effect.runPromise(
    read.pipe(Effect.timeout(limitMs), Effect.either, Logger.withMinimumLogLevel(LogLevel.Error)),
  );
  return {
    ms: performance.now() - started,
    blocks,
    logs,
    lastHash,
    failedSteps,
    lastError,
    finished: exit._tag === "Right",
  };
};

/** Whether a read through a proxy gave what the direct read gave. */
export const sameHistory = (a: HistoryRead, b: HistoryRead): boolean =>
  a.finished && b.finished && a.blocks === b.blocks && a.logs === b.logs && a.lastHash === b.lastHash;
