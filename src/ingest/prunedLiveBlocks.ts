import { Effect } from "effect";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import type { ChainRpcError } from "../chains/rpc/ChainRpcError.js";
import { goneFromEveryEndpoint, saysPruned, skipFrom } from "./goneFromEveryEndpoint.js";
import { fetchLiveBlock } from "./rpc/fetchLiveBlock.js";

/**
 * Where a follower reads on after a live block it needs was refused as pruned history (it was
 * stopped, or behind, for longer than its nodes keep receipts): `keptFrom(failure, from, head)`
 * answers the first block to read, or undefined to fail the step and try again.
 */
export const makeKeptFrom = (rpc: ChainRpc) => {
  /**
   * Whether a read failed because the node pruned that block's receipts (not a lagging backend's
   * "header not found", nor a trace whose state is gone while the block's receipts are kept).
   */
  const prunedRefusal = (failure: ChainRpcError) =>
    saysPruned(failure.reason, failure.detail) && !failure.method.startsWith("debug_");

  /**
   * Whether block `n` is served now (its block and receipts, as a live read asks them): true when
   * read, false when refused as pruned, undefined for anything else (a node that fails, a backend
   * that does not know the block yet, another endpoint answering the last attempt).
   */
  const served = (n: number) =>
    fetchLiveBlock(rpc, { number: n, traces: false }).pipe(
      Effect.map((block): boolean | undefined => (block === undefined ? undefined : true)),
      Effect.catchAll((failure) => Effect.succeed(prunedRefusal(failure) ? false : undefined)),
      // With several endpoints a refusal is only the one asked last: the block counts as pruned
      // only if every endpoint says so asked alone (one that is paused may keep it).
      Effect.flatMap((answer) =>
        answer === false && rpc.endpoints.length > 1
          ? Effect.map(goneFromEveryEndpoint(rpc, n, "logs"), (gone) => (gone ? false : undefined))
          : Effect.succeed(answer),
      ),
    );

  /**
   * The first block after `refused` the nodes serve now, searched by halves up to `head`, from a
   * probe's `figure` (which is stale: the window moved on since, and it may stand up to 1/64 of its
   * depth past the first block kept). About 20 reads of one block, in a step that is rare: the
   * follower fell further behind than its nodes keep. Only a block found served is answered, with
   * every block before it found refused; a read that tells neither ends the search with no answer,
   * and the step fails and is tried again, rather than skip blocks a node may still serve.
   */
  const firstServed = (refused: number, figure: number | undefined, head: number) =>
    Effect.gen(function* () {
      let low = refused;
      let high: number | undefined;
      if (figure !== undefined && figure > refused && figure <= head) {
        const atFigure = yield* served(figure);
        if (atFigure === undefined) return undefined;
        if (atFigure) high = figure;
        else low = figure;
      }
      if (high === undefined) {
        if (!(yield* served(head))) return undefined;
        high = head;
      }
      while (high - low > 1) {
        const middle = Math.floor((low + high) / 2);
        const answer = yield* served(middle);
        if (answer === undefined) return undefined;
        if (answer) high = middle;
        else low = middle;
      }
      return high;
    });

  /** The block whose skip endpoints that said nothing were last named as holding back (logged once). */
  let heldBackAt: number | undefined;

  /**
   * Where to read on after block `from` was refused, if it is gone for good; only when the node
   * said it pruned it.
   * - One endpoint: the refusal is its own. The first block it keeps is the one it names (reth,
   *   Erigon; current), else the first it serves now, searched from its probe's figure (geth names
   *   none, and a probe's figure is stale by as much as the window moved since).
   * - Several: a refusal is only the last one asked, so nothing is skipped while some endpoint (an
   *   archive, even one down now, or one never probed) may keep `from`: each endpoint counts as not
   *   keeping it when its probe says so or, where the probe is older than the window's last move,
   *   when it refuses the block's receipts as pruned asked alone. Then the first block served now is
   *   searched from the lowest of their figures, each block refused confirmed the same way.
   */
  return (failure: ChainRpcError, from: number, head: number) =>
    Effect.gen(function* () {
      if (!prunedRefusal(failure)) return undefined;
      const probed = rpc.capabilities().logsFrom;
      if (rpc.endpoints.length === 1) {
        const named = failure.earliest;
        if (named !== undefined && named > from) return named;
      } else {
        const skip = yield* skipFrom(rpc, from);
        if (skip.kind === "kept") return undefined;
        if (skip.kind === "silent") {
          // Waited on for as long as it takes: skipped blocks are lost for good, and an archive
          // that comes back serves them. Said once, so an operator knows which endpoint to mend.
          if (heldBackAt !== from)
            yield* Effect.logWarning(
              `chain ${rpc.chainId}: block ${from} is pruned on the other RPC endpoints; ingest waits for ${skip.labels.join(", ")}, which did not answer whether it keeps it, rather than skip blocks it may serve`,
            );
          heldBackAt = from;
          return undefined;
        }
      }
      return yield* firstServed(from, probed, head);
    });
};
