import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainRpcError } from "../../../src/chains/rpc/ChainRpcError.js";
import { directChainRpc } from "../../support/chainRpc.js";

/**
 * A call from Promise code goes to the node without a fiber (`ChainRpc.request`), through the HTTP
 * endpoint's own timer and abort. Against a real HTTP server that never answers `eth_call`: the
 * call is cut at the endpoint's timeout, the request's socket is closed, and the endpoint's only
 * connection is free again for the next call once the endpoint's failure pause is over.
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
});
