import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import type { ExchangeOutcome } from "../../../src/chains/rpc/jsonRpcExchange.js";
import type { RpcRequest } from "../../../src/chains/rpc/RpcRequest.js";
import { makeHistoryKept } from "../../../src/ingest/prunedHistory.js";
import { fakeChainRpcOf } from "../../support/chainRpc.js";

/** A node keeping receipts from block `from` on, refusing older ones as reth does. */
const keepsFrom =
  (from: number) =>
  (requests: ReadonlyArray<RpcRequest>): ExchangeOutcome => {
    const n = Number.parseInt((requests[0]!.params as ReadonlyArray<string>)[0]!, 16);
    return n >= from
      ? { kind: "answers", answers: [{ ok: true, result: [] }] }
      : {
          kind: "answers",
          answers: [
            {
              ok: false,
              fault: {
                reason: "HistoryUnavailable",
                detail: `pruned history unavailable: requested ${n}, earliest available ${from}`,
              },
            },
          ],
        };
  };

const down = (): ExchangeOutcome => ({
  kind: "fault",
  fault: { reason: "Unavailable", detail: "connection refused" },
});

const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(effect);

describe("makeHistoryKept", () => {
  it("behavior: one endpoint's own figure is the skip; with several, only what every one of them pruned is skipped", async () => {
    expect(await run(makeHistoryKept(fakeChainRpcOf([keepsFrom(900)]))(100, 900))).toBe(900);
    // The lowest probed figure was 900, but the second endpoint keeps from 600.
    const two = fakeChainRpcOf([keepsFrom(900), keepsFrom(600)]);
    expect(await run(makeHistoryKept(two)(100, 900))).toBe(600);
    // One keeps the very first block: nothing is skipped.
    expect(await run(makeHistoryKept(fakeChainRpcOf([keepsFrom(900), keepsFrom(0)]))(100, 900))).toBe(100);
  });

  it("behavior: an endpoint that says nothing (down, never probed) holds the skip back", async () => {
    const rpc = fakeChainRpcOf([keepsFrom(900), down]);
    expect(await run(makeHistoryKept(rpc)(100, 900))).toBeUndefined();
  });
});
