import { Effect, Fiber } from "effect";
import type { ChainRegistry } from "../../src/chains/ChainRegistry.js";
import { type IndexGap, type IndexTrimmed, runIndexer, STREAM_SEQ_KEY } from "../../src/indexer/Indexer.js";
import type { Db } from "../../src/storage/Level.js";
import type { TestNats } from "./natsServer.js";
import { eventually } from "./serviceHarness.js";

/**
 * Runs an indexer (no RPC client) over `db` until it has applied CHAIN_EVENTS message `seq`, then
 * stops it, as a worker that stops there: answers what it reported missed and each gap it told.
 */
export const indexUntil = async (
  nats: TestNats,
  db: Db,
  registry: ChainRegistry,
  seq: number,
  timeoutMs = 20_000,
  /** Told of each trim report as it is made (what the index holds then can be read in it). */
  onTrimmed?: (report: IndexTrimmed) => void,
) => {
  const trimmed: Array<IndexTrimmed> = [];
  const gaps: Array<IndexGap | undefined> = [];
  const indexer = Effect.runFork(
    runIndexer({
      nc: await nats.connectAs("api"),
      db,
      registry,
      client: () => undefined,
      onTrimmed: (report) => {
        trimmed.push(report);
        onTrimmed?.(report);
      },
      onGap: (_chainId, gap) => gaps.push(gap),
    }),
  );
  try {
    await eventually(async () => (await db.get(STREAM_SEQ_KEY)) === seq, timeoutMs, `indexed to ${seq}`);
  } finally {
    await Effect.runPromise(Fiber.interrupt(indexer));
  }
  return { trimmed, gaps };
};
