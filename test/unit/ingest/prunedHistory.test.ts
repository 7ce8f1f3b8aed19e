import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { makeHistoryKept } from "../../../src/ingest/prunedHistory.js";
import { fakeChainRpcOf } from "../../support/chainRpc.js";
import { down, keepsFrom } from "../../support/prunedFakeNodes.js";

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
