import { Effect, Either, Fiber } from "effect";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import type { ChainRpcError } from "../chains/rpc/ChainRpcError.js";
import { type EncodedBlock, encodeBlock } from "./encodedBlock.js";
import { nextReadsInFlight } from "./readsInFlight.js";
import { fetchLiveBlock } from "./rpc/fetchLiveBlock.js";

/** A range of live blocks read: those before the first read that failed, and that failure. */
export interface RangeRead {
  /** The blocks the node had, in order, encoded as they were read. */
  readonly blocks: ReadonlyArray<EncodedBlock>;
  /** Whether the node lacked some block of the range (not produced yet on the node asked). */
  readonly gaps: boolean;
  readonly failure: ChainRpcError | undefined;
  /** The block whose read failed, with `failure`. */
  readonly failedBlock?: number;
}

export interface LiveRangeOptions {
  readonly rpc: ChainRpc;
  /** Whether internal native transfers are read with block `number` (they can be turned off while running). */
  readonly traces: (number: number) => boolean;
  /** Block reads in flight at most; fewer while the node times out (readsInFlight.ts). */
  readonly prefetch: number;
  /** Blocks read per range. */
  readonly catchUpRange: number;
  /** The NATS server's max_payload: larger block messages are split. */
  readonly maxPayload: number;
}

/**
 * Reads live blocks a range at a time while catching up, and the next range while the current one
 * is published: the node's reads and the bus's acks then overlap instead of taking turns.
 */
export const makeLiveRanges = (options: LiveRangeOptions) => {
  /** Block reads a range keeps in flight: fewer while the node times out (see nextReadsInFlight). */
  let readsInFlight = options.prefetch;

  /**
   * Blocks `from`..`to` read whole, `readsInFlight` at a time: the blocks read before the first that
   * failed, and that failure. The read blocks are kept, so a node too slow for one block of a
   * range still lets the follower advance to it instead of reading the whole range again.
   */
  const fetchRange = (from: number, to: number): Effect.Effect<RangeRead> =>
    Effect.map(
      Effect.forEach(
        Array.from({ length: to - from + 1 }, (_, i) => from + i),
        (number) =>
          Effect.either(
            Effect.map(fetchLiveBlock(options.rpc, { number, traces: options.traces(number) }), (block) =>
              block === undefined ? undefined : encodeBlock(block, options.maxPayload),
            ),
          ),
        { concurrency: readsInFlight },
      ),
      (results) => {
        const failedAt = results.findIndex(Either.isLeft);
        const read = failedAt === -1 ? results : results.slice(0, failedAt);
        const failure =
          failedAt === -1 ? undefined : (results[failedAt] as Either.Left<ChainRpcError, unknown>).left;
        readsInFlight = nextReadsInFlight(readsInFlight, options.prefetch, failure);
        const blocks = read.flatMap((result) =>
          Either.isRight(result) && result.right !== undefined ? [result.right] : [],
        );
        return {
          blocks,
          gaps: blocks.length < read.length,
          failure,
          ...(failedAt === -1 ? {} : { failedBlock: from + failedAt }),
        };
      },
    );

  const rangeFrom = (from: number, head: number) =>
    fetchRange(from, Math.min(head, from + options.catchUpRange - 1));

  /**
   * The next range, being read while the current one is published. Used only if the next read
   * starts exactly there (after a fork or a failure it is dropped and read again).
   */
  let ahead: { readonly from: number; readonly fiber: Fiber.RuntimeFiber<RangeRead> } | undefined;

  /** The range from `from` (at most up to `head`), and the next one started in the background. */
  const read = (from: number, head: number) =>
    Effect.gen(function* () {
      const readAhead = ahead;
      ahead = undefined;
      let range: RangeRead;
      if (readAhead?.from === from) range = yield* Fiber.join(readAhead.fiber);
      else {
        if (readAhead !== undefined) yield* Fiber.interrupt(readAhead.fiber);
        range = yield* rangeFrom(from, head);
      }
      const nextFrom = from + range.blocks.length;
      if (range.failure === undefined && !range.gaps && nextFrom <= head)
        ahead = { from: nextFrom, fiber: yield* Effect.fork(rangeFrom(nextFrom, head)) };
      return range;
    });

  return { read } as const;
};
