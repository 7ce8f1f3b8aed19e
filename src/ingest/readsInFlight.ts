import type { ChainRpcError } from "../chains/rpc/ChainRpcError.js";

/**
 * How many block reads a catch-up range keeps in flight after a range ended with `failure` (or
 * none): a node that answers reads one after another (anvil replaying old state for a trace takes
 * seconds per block) makes every read of a full set wait behind the others until all time out, and
 * the same set would be tried again forever. A timeout halves the count, down to one, so the reads
 * fit the timeout; a range read whole raises it by one, up to `most`. Other failures leave it.
 */
export const nextReadsInFlight = (
  current: number,
  most: number,
  failure: ChainRpcError | undefined,
): number =>
  failure === undefined
    ? Math.min(most, current + 1)
    : failure.reason === "Timeout"
      ? Math.max(1, Math.floor(current / 2))
      : current;
