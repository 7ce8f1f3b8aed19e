import { createServer, type Server } from "node:http";
import { Pool } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ExchangeOutcome, exchange } from "../../../../src/chains/rpc/jsonRpcExchange.js";

/** The ids of a request body: one for a single request, each element's for a batch. */
type Ids = ReadonlyArray<number>;

/** A node (HTTP 200) whose answer the test writes from the ids it was sent. */
let respond: (ids: Ids) => string = () => "";
let server: Server;
let pool: Pool;

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => {
      text += chunk;
    });
    req.on("end", () => {
      const sent = JSON.parse(text) as { id: number } | ReadonlyArray<{ id: number }>;
      const ids = Array.isArray(sent) ? sent.map((r) => r.id) : [(sent as { id: number }).id];
      res.writeHead(200, { "content-type": "application/json" }).end(respond(ids));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  pool = new Pool(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
});

afterAll(async () => {
  await pool.close();
  await new Promise((resolve) => server.close(resolve));
});

const ask = (answer: (ids: Ids) => string, requests = 1): Promise<ExchangeOutcome> => {
  respond = answer;
  return exchange(
    { dispatcher: pool, path: "/", headers: { "content-type": "application/json" } },
    Array.from({ length: requests }, () => ({ method: "eth_blockNumber", params: [] })),
    { signal: new AbortController().signal, nowMs: Date.now },
  );
};

const answers = (outcome: ExchangeOutcome) => (outcome.kind === "answers" ? outcome.answers : []);

describe("a JSON-RPC exchange with a node that answers oddly", () => {
  it("hostile: JSON that is not a reply (null, a number, a string, true) is a bad answer, never a throw", async () => {
    for (const text of ["null", "5", '"0x10"', "true"])
      for (const requests of [1, 2]) {
        const outcome = await ask(() => text, requests);
        expect(outcome.kind).toBe("fault");
        if (outcome.kind === "fault") expect(outcome.fault.reason).toBe("BadResponse");
      }
  });

  it("hostile: an answer over the size cap is cut off, and says what may fit: a smaller batch, a smaller range", async () => {
    const capped = new Pool(`http://127.0.0.1:${(server.address() as { port: number }).port}`, {
      maxResponseSize: 4096,
    });
    respond = (ids) =>
      JSON.stringify(ids.map((id) => ({ jsonrpc: "2.0", id, result: "0x".padEnd(5000, "0") })));
    const send = (requests: ReadonlyArray<{ method: string; params: ReadonlyArray<unknown> }>) =>
      exchange({ dispatcher: capped, path: "/", headers: { "content-type": "application/json" } }, requests, {
        signal: new AbortController().signal,
        nowMs: Date.now,
      });
    try {
      const reasons = [
        await send([{ method: "eth_getLogs", params: [{}] }]),
        await send([
          { method: "eth_blockNumber", params: [] },
          { method: "eth_blockNumber", params: [] },
        ]),
        await send([{ method: "eth_call", params: [] }]),
      ].map((outcome) => (outcome.kind === "fault" ? outcome.fault.reason : "answered"));
      expect(reasons).toEqual(["TooManyResults", "BatchTooLarge", "Rejected"]);
    } finally {
      await capped.close();
    }
  });

  it("hostile: a batch element with neither result nor error is a bad answer, not an empty result", async () => {
    const [first, second] = answers(
      await ask(
        ([a, b]) =>
          JSON.stringify([
            { jsonrpc: "2.0", id: a },
            { jsonrpc: "2.0", id: b, result: "0x1" },
          ]),
        2,
      ),
    );
    expect(first).toMatchObject({ ok: false, fault: { reason: "BadResponse" } });
    expect(second).toEqual({ ok: true, result: "0x1" });
  });

  it("behavior: an array holding only an error of no request's id (a provider's rate limit) refuses the whole exchange", async () => {
    const outcome = await ask(
      () =>
        JSON.stringify([{ jsonrpc: "2.0", id: null, error: { code: 429, message: "Too many requests" } }]),
      3,
    );
    expect(outcome.kind === "fault" && outcome.fault.reason).toBe("RateLimited");
  });

  it("hostile: an error of any shape is a refusal, and a null error beside a result is none", async () => {
    expect(answers(await ask(([id]) => `{"jsonrpc":"2.0","id":${id},"result":"0x10","error":null}`))).toEqual(
      [{ ok: true, result: "0x10" }],
    );
    for (const error of ['"boom"', "42", '{"code":"x","message":{"a":1}}', "[]"]) {
      const [answer] = answers(await ask(([id]) => `{"jsonrpc":"2.0","id":${id},"error":${error}}`));
      expect(answer?.ok).toBe(false);
    }
  });

  it("hostile: in a batch, null elements, odd errors and null errors leave the other elements read", async () => {
    const outcome = await ask(
      ([a, b, c]) =>
        `[null, 7, {"id":${a},"result":"0x1","error":null}, {"id":${b},"error":null,"result":"0x2"}, {"id":${c},"error":"nope"}]`,
      3,
    );
    const [first, second, third] = answers(outcome);
    expect(first).toEqual({ ok: true, result: "0x1" });
    expect(second).toEqual({ ok: true, result: "0x2" });
    expect(third?.ok).toBe(false);
  });
});
