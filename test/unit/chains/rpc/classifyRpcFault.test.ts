import { describe, expect, it } from "vitest";
import {
  classifyRefusal,
  classifyTransportError,
  type NodeRefusal,
  parseRetryAfter,
} from "../../../../src/chains/rpc/classifyRpcFault.js";
import { LogsRangeTuner } from "../../../../src/chains/rpc/LogsRangeTuner.js";

const NOW = Date.parse("2026-11-28T12:00:00Z");

const refusal = (over: Partial<NodeRefusal> & Pick<NodeRefusal, "message">): NodeRefusal => ({
  method: "eth_call",
  httpStatus: 200,
  batch: false,
  ...over,
});

const logs = (message: string, over: Partial<NodeRefusal> = {}) =>
  classifyRefusal(
    refusal({ method: "eth_getLogs", range: { from: 18_000_000, to: 18_001_000 }, message, ...over }),
    NOW,
  );

describe("classifyRefusal: eth_getLogs range and result caps, in each provider's words", () => {
  it("behavior: reth's block-range cap names its limit", () => {
    expect(logs("query exceeds max block range 100000", { code: -32602 })).toMatchObject({
      reason: "RangeTooLarge",
      limit: 100_000,
    });
  });

  it("behavior: reth's result cap is followed by the range it suggests (decimal)", () => {
    expect(
      logs("query exceeds max results 20000, retry with the range 18000000-18000499", { code: -32602 }),
    ).toMatchObject({
      reason: "TooManyResults",
      suggested: { from: 18_000_000, to: 18_000_499 },
      resultCap: 20_000,
    });
  });

  it("behavior: Infura's result cap suggests a hex range", () => {
    expect(
      logs("query returned more than 10000 results. Try with this block range [0x112A880, 0x112A9F3].", {
        code: -32005,
      }),
    ).toMatchObject({ reason: "TooManyResults", suggested: { from: 0x112a880, to: 0x112a9f3 } });
  });

  it("behavior: Alchemy's response-size refusal is followed by its suggested range, not by its '2K' advice", () => {
    const fault = logs(
      "Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters and the response size limit, this block range should work: [0x112a880, 0x112a8f0]",
      { code: -32602 },
    );
    expect(fault).toMatchObject({
      reason: "TooManyResults",
      suggested: { from: 0x112a880, to: 0x112a8f0 },
      resultCap: 10_000,
    });
  });

  it("behavior: caps in blocks from QuickNode, geth/publicnode, Coinbase, BlockPI, thirdweb, Cloudflare", () => {
    const cases: ReadonlyArray<[string, number]> = [
      ["eth_getLogs is limited to a 10,000 range", 10_000],
      ["exceed maximum block range: 50000", 50_000],
      ["please limit the query to at most 1000 blocks", 1_000],
      ["eth_getLogs is limited to 1024 block range", 1_024],
      ["Maximum allowed number of requested blocks is 1000", 1_000],
      ["Max range: 3500", 3_500],
      ["eth_getLogs range is too large, max is 1k blocks", 1_000],
    ];
    for (const [message, limit] of cases)
      expect(logs(message, { code: -32000 }), message).toMatchObject({ reason: "RangeTooLarge", limit });
  });

  it("behavior: range refusals that name no number (Base, Ankr, Chainstack) still say the range was too large", () => {
    for (const message of ["block range too large", "block range is too wide", "Block range limit exceeded."])
      expect(logs(message, { code: -32600 }).reason, message).toBe("RangeTooLarge");
    // Base's public endpoint, asked for a range far over its 2,000 blocks; over a smaller range the
    // same words are proxyd's outage.
    const noBackend = "no backend is currently healthy to serve traffic";
    expect(logs(noBackend, { code: -32011, range: { from: 1, to: 20_000 } }).reason).toBe("RangeTooLarge");
    expect(logs(noBackend, { code: -32011, httpStatus: 503, range: { from: 1, to: 500 } }).reason).toBe(
      "Unavailable",
    );
  });

  it("behavior: result refusals without a range (Arbitrum, OP, Infura's timeout) ask for less", () => {
    for (const message of [
      "logs matched by query exceeds limit of 10000",
      "backend response too large",
      "query timeout exceeded",
    ])
      expect(logs(message, { code: -32005 }).reason, message).toBe("TooManyResults");
  });

  it("behavior: a suggested range that does not shrink the request becomes a size, never the same range again", () => {
    const fault = classifyRefusal(
      refusal({
        method: "eth_getLogs",
        range: { from: 100, to: 199 },
        message: "query returned more than 10000 results. Try with this block range [0x0, 0x31].",
      }),
      NOW,
    );
    expect(fault).toMatchObject({ reason: "TooManyResults", limit: 50 });
    expect(fault.suggested).toBeUndefined();
  });

  it("behavior: Alchemy's range cap (free tier) stays a ceiling beside its suggested range, so the range never grows back into refusals", () => {
    const fault = logs(
      "You can make eth_getLogs requests with up to a 10 block range. Based on your parameters, this block range should work: [0x112a880, 0x112a889]",
      { code: -32600 },
    );
    expect(fault).toMatchObject({
      reason: "RangeTooLarge",
      suggested: { from: 0x112a880, to: 0x112a889 },
      limit: 10,
    });
    const tuner = new LogsRangeTuner(10_000);
    if (fault.reason !== "RangeTooLarge") throw new Error("not a range refusal");
    expect(tuner.refused(fault, 500)).toBe(10);
    for (let i = 0; i < 50; i++) tuner.answered(tuner.size, 3);
    expect(tuner.size).toBe(10);
  });

  it("behavior: a range cap worded 'not supported' is a cap, not a method the node lacks", () => {
    expect(logs("ranges over 10000 blocks are not supported on freetier", { code: -32600 })).toMatchObject({
      reason: "RangeTooLarge",
      limit: 10_000,
    });
    // The same words for another method still say the node lacks something.
    expect(classifyRefusal(refusal({ message: "this method is not supported" }), NOW).reason).toBe(
      "MethodUnavailable",
    );
  });
});

describe("classifyRefusal: rate limits, whatever code they carry", () => {
  it("behavior: Infura's HTTP 429 with -32005 is a rate limit honouring backoff_seconds, not a result cap", () => {
    const fault = logs("project ID request rate exceeded", {
      httpStatus: 429,
      code: -32005,
      data: { current_rps: 13.3, allowed_rps: 10, backoff_seconds: 30 },
    });
    expect(fault).toMatchObject({ reason: "RateLimited", retryAfterMs: 30_000 });
  });

  it("behavior: Alchemy's per-element 429 inside an HTTP 200 batch, and QuickNode's RPS text", () => {
    expect(
      classifyRefusal(
        refusal({
          batch: true,
          code: 429,
          message:
            "Your app has exceeded its compute units per second capacity. If you have retries enabled, you can safely ignore this message.",
        }),
        NOW,
      ).reason,
    ).toBe("RateLimited");
    expect(
      classifyRefusal(
        refusal({
          message: "The requests per second (RPS) of your requests are higher than your plan allows.",
        }),
        NOW,
      ).reason,
    ).toBe("RateLimited");
  });

  it("behavior: Retry-After in seconds or as an HTTP date wins over the body", () => {
    expect(logs("Too Many Requests", { httpStatus: 429, retryAfter: "7" })).toMatchObject({
      reason: "RateLimited",
      retryAfterMs: 7_000,
    });
    expect(parseRetryAfter(new Date(NOW + 12_000).toUTCString(), NOW)).toBe(12_000);
    expect(parseRetryAfter("soon", NOW)).toBeUndefined();
  });

  it("behavior: Nethermind's full request pool (HTTP 503) is a rate limit, not a dead node", () => {
    expect(
      classifyRefusal(
        refusal({
          httpStatus: 503,
          message: "Unable to rent an instance of IEthRpcModule. Too many concurrent requests",
        }),
        NOW,
      ).reason,
    ).toBe("RateLimited");
  });
});

describe("classifyRefusal: batches, methods, history", () => {
  it("behavior: geth's refusal of a whole batch, and Erigon's with its limit", () => {
    expect(
      classifyRefusal(refusal({ batch: true, code: -32600, message: "batch too large" }), NOW).reason,
    ).toBe("BatchTooLarge");
    expect(
      classifyRefusal(refusal({ batch: true, code: -32600, message: "batch limit 100 exceeded" }), NOW),
    ).toMatchObject({ reason: "BatchTooLarge", limit: 100 });
  });

  it("behavior: a method the node does not serve, in geth's and reth's words", () => {
    for (const message of [
      "the method debug_traceBlockByHash does not exist/is not available",
      "Method not found",
    ])
      expect(classifyRefusal(refusal({ code: -32601, message }), NOW).reason, message).toBe(
        "MethodUnavailable",
      );
  });

  it("behavior: pruned history and state, with the earliest block when the node names it", () => {
    expect(
      classifyRefusal(
        refusal({
          method: "eth_getLogs",
          code: 4444,
          message: "pruned history unavailable: requested 100, earliest available 2000",
        }),
        NOW,
      ),
    ).toMatchObject({ reason: "HistoryUnavailable", earliest: 2000 });
    for (const message of [
      "state at block #100 is pruned",
      "missing trie node 8f2c7e4a (path ) state 0x8f2c is not available",
      "historical state 8f2c7e4a5b is not available",
      // geth's trace of a block whose state the hash scheme no longer holds (eth/state_accessor.go).
      "required historical state unavailable (reexec=128)",
      "header not found",
      // geth's eth_call at a block hash it does not hold, and its trace of such a block.
      "header for hash not found",
      "block 0x5e0b9f2cbd8a11d5a0b0fd3cfd9a7c40a3e4c4e0a1d6a3b8f0e3a9a7c2b1d0e9 not found",
      "block #100 not found",
      "BlockOutOfRangeError: block height is 633 but requested was 1",
      "block range extends beyond current head block: requested 120, head 100",
    ])
      expect(classifyRefusal(refusal({ code: -32000, message }), NOW).reason, message).toBe(
        "HistoryUnavailable",
      );
  });

  it("edge: a contract's revert is the call's own refusal, whatever its reason says and whatever the HTTP status", () => {
    for (const [message, code, httpStatus] of [
      ["execution reverted: rate limit exceeded", 3, 200],
      ["execution reverted: operation not supported", 3, 200],
      ["execution reverted: state not available", -32000, 200],
      ["execution reverted", 3, 400],
    ] as const)
      expect(
        classifyRefusal(refusal({ method: "eth_call", code, message, httpStatus }), NOW).reason,
        message,
      ).toBe("Rejected");
  });

  it("behavior: Erigon's pruning text names where its history starts", () => {
    expect(
      classifyRefusal(
        refusal({
          code: -32000,
          message:
            "old data not available due to pruning: requested block 100, history is available from block 5000",
        }),
        NOW,
      ),
    ).toMatchObject({ reason: "HistoryUnavailable", earliest: 5000 });
  });

  it("behavior: a revert is the request's own fault, the same on any node", () => {
    expect(classifyRefusal(refusal({ code: 3, message: "execution reverted" }), NOW).reason).toBe("Rejected");
  });

  it("behavior: a log filter wider than the node takes is the request's own fault, not a result or range cap", () => {
    expect(logs("exceed max addresses or topics per search position", { code: -32000 }).reason).toBe(
      "Rejected",
    );
    expect(
      logs("This query contains 5006 filters. The current limit is 5000.", { code: -32005 }).reason,
    ).toBe("Rejected");
    // A gateway's body cap in front of the node: the filter is too long, not its range.
    expect(
      logs("<html><head><title>413 Request Entity Too Large</title></head></html>", { httpStatus: 413 })
        .reason,
    ).toBe("Rejected");
    expect(logs("Payload Too Large", { httpStatus: 413 }).reason).toBe("Rejected");
    // A bare 413 on a log query is a range cap (QuickNode's status for it).
    expect(logs("", { httpStatus: 413 }).reason).toBe("RangeTooLarge");
  });

  it("behavior: HTTP errors without JSON are the endpoint's failure", () => {
    expect(
      classifyRefusal(refusal({ httpStatus: 502, message: "<html>Bad Gateway</html>" }), NOW).reason,
    ).toBe("Unavailable");
    expect(classifyRefusal(refusal({ httpStatus: 401, message: "invalid project id" }), NOW)).toMatchObject({
      reason: "Unavailable",
      detail: "HTTP 401: invalid project id",
    });
    expect(classifyRefusal(refusal({ httpStatus: 504, message: "gateway timeout" }), NOW).reason).toBe(
      "Timeout",
    );
  });
});

describe("classifyTransportError names the cause an operator can act on", () => {
  const withCode = (code: string, message = "fetch failed") => Object.assign(new Error(message), { code });

  it("behavior: refused, DNS, TLS, reset and timeouts", () => {
    expect(classifyTransportError(withCode("ECONNREFUSED"))).toEqual({
      reason: "Unavailable",
      detail: "connection refused (ECONNREFUSED)",
    });
    expect(classifyTransportError(withCode("ENOTFOUND")).detail).toMatch(/DNS/);
    expect(
      classifyTransportError(withCode("DEPTH_ZERO_SELF_SIGNED_CERT", "self-signed certificate")),
    ).toMatchObject({
      reason: "Unavailable",
      detail: "TLS: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)",
    });
    expect(classifyTransportError(withCode("UND_ERR_HEADERS_TIMEOUT")).reason).toBe("Timeout");
    expect(
      classifyTransportError(new DOMException("The operation was aborted due to timeout", "TimeoutError"))
        .reason,
    ).toBe("Timeout");
  });

  it("behavior: the code is found on a wrapped cause too (undici wraps the socket error)", () => {
    const wrapped = Object.assign(new TypeError("fetch failed"), {
      cause: withCode("ECONNRESET", "read ECONNRESET"),
    });
    expect(classifyTransportError(wrapped).detail).toBe("connection reset by the node (ECONNRESET)");
  });
});
