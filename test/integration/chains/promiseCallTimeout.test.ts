import { createServer, type Server } from "node:http";
import { Cause, Effect, Exit } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainRpcError } from "../../../src/chains/rpc/ChainRpcError.js";
import { directChainRpc } from "../../support/chainRpc.js";

/**
 * A call whose first round can go at once is sent without a fiber (`ChainRpc.request` for Promise
 * code, `ChainRpc.call` for Effect), through the HTTP endpoint's own timer and abort. Against a real
 * HTTP server that never answers `eth_call`: the call is cut at the endpoint's timeout, or when the
 * Effect caller's fiber is interrupted; the request's socket is closed, and the endpoint's only
 * connection is free again for the next call.
 */

let server: Server;
let url: string;
/** eth_call requests the server received, and how many of them the client closed unanswered. */
const calls = { received: 0, closedUnanswered: 0 };

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Array<Buffer> = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: number; method: string };
      if (message.method === "eth_call") {
        calls.received++;
        // Never answered: only the client's timeout ends it.
        res.on("close", () => {
          if (!res.writableEnded) calls.closedUnanswered++;
        });
        return;
      }
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: "0x10" }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("a call from Promise code to a node that hangs", () => {
  it("error: is cut at the endpoint's timeout as a Timeout, its socket closed, and the connection is free after", async () => {
    const { rpc, close } = directChainRpc(url, { timeoutMs: 300, maxConcurrency: 1 });
    try {
      const started = performance.now();
      // A request's handle: the endpoint is failing after the timeout, so the call ends there.
      const failure = await rpc
        .forRequests(2_000)
        .request("eth_call", [{ to: `0x${"11".repeat(20)}`, data: "0x" }, "latest"])
        .catch((error: unknown) => error);
      const took = performance.now() - started;
      expect(failure).toBeInstanceOf(ChainRpcError);
      expect((failure as ChainRpcError).reason).toBe("Timeout");
      expect(took).toBeGreaterThanOrEqual(290);
      expect(took).toBeLessThan(1_500);
      expect(calls.received).toBe(1);
      await expect.poll(() => calls.closedUnanswered, { timeout: 2_000 }).toBe(1);
      // The one connection was given back: a background call waits out the failure pause and is answered.
      await expect(rpc.request("eth_blockNumber", [])).resolves.toBe("0x10");
    } finally {
      await close();
    }
  });

  it("error: a call from Effect code interrupted before the endpoint's timeout closes its socket at once and frees the connection", async () => {
    const { rpc, close } = directChainRpc(url, { timeoutMs: 10_000, maxConcurrency: 1 });
    const before = { ...calls };
    try {
      const started = performance.now();
      const exit = await Effect.runPromiseExit(
        rpc
          .call("eth_call", [{ to: `0x${"22".repeat(20)}`, data: "0x" }, "latest"])
          .pipe(Effect.timeout("200 millis")),
      );
      expect(Exit.isFailure(exit) && Cause.isFailType(exit.cause) && exit.cause.error._tag).toBe(
        "TimeoutException",
      );
      expect(calls.received).toBe(before.received + 1);
      // Cut by the interruption, long before the endpoint's own 10 s.
      await expect.poll(() => calls.closedUnanswered, { timeout: 2_000 }).toBe(before.closedUnanswered + 1);
      expect(performance.now() - started).toBeLessThan(2_000);
      // The endpoint was not blamed and its one connection is free: the next call goes at once.
      await expect(Effect.runPromise(rpc.call("eth_blockNumber", []))).resolves.toBe("0x10");
      expect(rpc.endpoints[0]!.health.failures).toBe(0);
    } finally {
      await close();
    }
  });
});
