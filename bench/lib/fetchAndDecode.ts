import { Effect } from "effect";
import type { ChainRpc } from "../../src/chains/rpc/ChainRpc.js";
import { decodeLogs } from "../../src/decoding/index.js";
import { fetchLiveBlock } from "../../src/ingest/rpc/fetchLiveBlock.js";

/** The bare loop's reads in flight, as the service's follower keeps them. */
const CONCURRENCY = 8;

/**
 * The ingest benchmarks' floor: each block read (block, receipts, and traces unless `traces` is
 * false) through `client`, 8 at a time, and its logs decoded; nothing published or indexed. Answers
 * how many events it decoded.
 */
export const fetchAndDecode = (
  client: ChainRpc,
  numbers: ReadonlyArray<number>,
  traces = true,
): Promise<number> =>
  Effect.runPromise(
    Effect.forEach(
      numbers,
      (number) =>
        fetchLiveBlock(client, { number, traces }).pipe(
          Effect.map((block) => (block === undefined ? 0 : decodeLogs(block.logs).length)),
        ),
      { concurrency: CONCURRENCY },
    ),
  ).then((counts) => counts.reduce((a, b) => a + b, 0));

/** `from` .. `to`, both included. */
export const blockRange = (from: number, to: number): ReadonlyArray<number> =>
  Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
