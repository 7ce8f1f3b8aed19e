import { Clock, Effect } from "effect";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import type { RpcEndpoint } from "../chains/rpc/RpcEndpoint.js";
import { endpointVerdicts, firstKeptAfter } from "./goneFromEveryEndpoint.js";

/**
 * How long a history skip waits on endpoints that hold it back (they said nothing, or said they
 * keep a block whose read was refused as pruned) before it goes ahead without them. Unlike a live
 * block, skipped history is not lost to clients: discovery reads a wallet's history from whichever
 * node serves it (docs/real-chains.md); while the follower waits, the chain is not followed at all.
 */
export const HISTORY_HOLD_MS = 10 * 60_000;

/**
 * How far a history read skips when the nodes say they no longer keep the logs of block `from`
 * (a probe's figure, or a refusal naming the first block kept; `refused` says which):
 * `historyKept(from, upTo, refused)` answers the first block to read, at most `upTo`, or
 * undefined while the skip is held back (the read is then tried as usual, and retried while it
 * fails).
 *
 * - One endpoint: its own figure or refusal is the whole answer, `upTo`.
 * - Several: the figure is the lowest of those probed so far, and a refusal is only the endpoint
 *   asked last; an archive never probed (down since the start) or one down now may keep every
 *   block. So each endpoint is asked alone, as a live read's skip asks them (prunedLiveBlocks.ts).
 *   One that keeps `from` is read from. Once all say it is gone, the skip ends at the first block
 *   some endpoint keeps, found by halves. One that says nothing, or says it keeps a block whose
 *   read was just refused (a node without eth_getBlockReceipts, one answering pruned receipts
 *   empty), holds the skip back for `holdMs`, then is left out of it.
 */
export const makeHistoryKept = (rpc: ChainRpc, holdMs = HISTORY_HOLD_MS) => {
  /** The block whose skip is held back, and since when (this process's clock). */
  let held: { readonly from: number; readonly since: number } | undefined;
  /**
   * Endpoints waited on for a whole hold: left out of later skips too (each would otherwise wait
   * a new hold while a pruned node's window moves on), until a probe finds they keep the block.
   */
  const givenUp = new Set<RpcEndpoint>();
  const leftOut = (endpoint: RpcEndpoint) => givenUp.has(endpoint);

  return (from: number, upTo: number, refused: boolean) =>
    Effect.gen(function* () {
      if (rpc.endpoints.length === 1) return upTo;
      for (const endpoint of givenUp)
        if ((endpoint.health.capabilities?.logsFrom ?? Number.POSITIVE_INFINITY) <= from)
          givenUp.delete(endpoint);
      const verdicts = yield* endpointVerdicts(rpc, from, "logs", leftOut);
      if (verdicts.length === 0) return from;
      const holders = verdicts.filter(({ verdict }) => verdict !== "gone");
      if (holders.length === 0) {
        held = undefined;
        return (yield* firstKeptAfter(rpc, from, upTo, "logs", leftOut)) ?? upTo;
      }
      if (!refused && holders.some(({ verdict }) => verdict === "kept")) return from;
      // Nobody asked says the block is gone: the refusals are something else than pruning (or every
      // endpoint is down), and nothing is skipped; the read is tried again on its schedule.
      if (!verdicts.some(({ endpoint, verdict }) => verdict === "gone" && !leftOut(endpoint)))
        return undefined;
      const now = yield* Clock.currentTimeMillis;
      const names = holders
        .map(
          ({ endpoint, verdict }) =>
            `${endpoint.label} (${verdict === "kept" ? "says it keeps it" : "said nothing"})`,
        )
        .join(", ");
      if (held?.from !== from) {
        held = { from, since: now };
        yield* Effect.logWarning(
          `chain ${rpc.chainId}: history from block ${from} is not served where asked; ingest waits up to ${Math.round(holdMs / 1000)} s for ${names} rather than skip history it may serve`,
        );
      }
      const waitedMs = now - held.since;
      if (waitedMs < holdMs) return undefined;
      for (const { endpoint } of holders) givenUp.add(endpoint);
      const until = (yield* firstKeptAfter(rpc, from, upTo, "logs", leftOut)) ?? upTo;
      held = undefined;
      yield* Effect.logWarning(
        `chain ${rpc.chainId}: waited ${Math.round(waitedMs / 1000)} s for ${names}; history is read from block ${until} on instead of ${from}, and discovery reads wallets' history before it from whichever node serves it`,
      );
      return until;
    });
};
