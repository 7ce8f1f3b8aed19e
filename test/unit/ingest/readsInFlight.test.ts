import { describe, expect, it } from "vitest";
import { ChainRpcError } from "../../../src/chains/rpc/ChainRpcError.js";
import { nextReadsInFlight } from "../../../src/ingest/readsInFlight.js";

const failure = (reason: ChainRpcError["reason"]) =>
  new ChainRpcError({ chainId: 1, method: "debug_traceBlockByNumber", reason, cause: new Error(reason) });

describe("block reads in flight while catching up", () => {
  it("behavior: timeouts halve the reads down to one at a time, and whole ranges raise them back to the most", () => {
    const afterTimeouts = [1, 2, 3, 4].reduce((n) => nextReadsInFlight(n, 8, failure("Timeout")), 8);
    expect(afterTimeouts).toBe(1);
    expect(nextReadsInFlight(8, 8, failure("Timeout"))).toBe(4);
    const recovered = Array.from({ length: 10 }).reduce<number>((n) => nextReadsInFlight(n, 8, undefined), 1);
    expect(recovered).toBe(8);
    expect(nextReadsInFlight(3, 8, undefined)).toBe(4);
  });

  it("behavior: a node that is down or answers badly does not change how many reads are in flight", () => {
    expect(nextReadsInFlight(8, 8, failure("Unavailable"))).toBe(8);
    expect(nextReadsInFlight(2, 8, failure("BadResponse"))).toBe(2);
  });
});
