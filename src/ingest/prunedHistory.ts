import { Effect } from "effect";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import { firstKeptAfter, skipFrom } from "./goneFromEveryEndpoint.js";

/**
 * How far a history read skips when the nodes say they no longer keep the logs of block `from`
 * (a probe's figure, or a refusal naming the first block kept): `historyKept(from, upTo)` answers
 * the first block to read, at most `upTo`, or undefined while an endpoint that may keep `from`
 * said nothing (the read is then tried as usual, and retried while it fails).
 *
 * - One endpoint: its own figure or refusal is the whole answer, `upTo`.
 * - Several: the figure is the lowest of those probed so far, and a refusal is only the endpoint
 *   asked last; an archive never probed (down since the start) or one down now may keep every
 *   block. So each endpoint is asked alone, as a live read's skip asks them (prunedLiveBlocks.ts):
 *   nothing is skipped while one keeps `from` or says nothing, and otherwise the skip ends at the
 *   first block some endpoint keeps, found by halves. Skipped history is never read again.
 */
export const makeHistoryKept = (rpc: ChainRpc) => {
  /** The block whose skip silent endpoints were last named as holding back (logged once). */
  let heldBackAt: number | undefined;

  return (from: number, upTo: number) =>
    Effect.gen(function* () {
      if (rpc.endpoints.length === 1) return upTo;
      const skip = yield* skipFrom(rpc, from);
      if (skip.kind === "kept") return from;
      if (skip.kind === "silent") {
        if (heldBackAt !== from)
          yield* Effect.logWarning(
            `chain ${rpc.chainId}: history from block ${from} is pruned on the other RPC endpoints; ingest waits for ${skip.labels.join(", ")}, which did not answer whether it keeps it, rather than skip history it may serve`,
          );
        heldBackAt = from;
        return undefined;
      }
      // Every endpoint said `from` is gone: the skip runs to the first block one keeps (or says
      // nothing of), or to `upTo` when even that is gone everywhere.
      return (yield* firstKeptAfter(rpc, from, upTo, "logs")) ?? upTo;
    });
};
