import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { devAccount } from "../../../src/devnet/devAccounts.js";
import { anvilFixture } from "../../support/anvil.js";
import { MANY_LOGS_CODE, manyLogsCalldata, ONE_LOG_CODE } from "../../support/logEmitters.js";
import {
  type ProviderProxy,
  type ProviderProxyOptions,
  type ProviderStyle,
  startProviderProxy,
} from "../../support/providerProxy.js";

/**
 * The chain: blocks 1-12 hold one ONE_LOG log each, blocks 13 and 14 hold 6,000 MANY_LOGS logs each,
 * 2,000 empty blocks follow (Alchemy caps results only above a 2K range), and the last three blocks hold
 * one ONE_LOG log each.
 */
const anvil = anvilFixture();
const ONE_LOG = "0x00000000000000000000000000000000000a11ce";
const MANY_LOGS = "0x000000000000000000000000000000000000b0b5";
const FROM = devAccount(0).address;
let head = 0;
let oldTx = "";
let newTx = "";

interface Reply {
  readonly status: number;
  readonly headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: JSON-RPC replies are read field by field in assertions
  readonly body: any;
}

const post = async (url: string, body: unknown): Promise<Reply> => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text.length > 0 ? JSON.parse(text) : undefined,
  };
};

const call = (method: string, params: ReadonlyArray<unknown>, id: unknown = 1) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});

const hex = (n: number) => `0x${n.toString(16)}`;

const logs = (address: string, from: number | string, to: number | string) =>
  call("eth_getLogs", [
    {
      address,
      fromBlock: typeof from === "number" ? hex(from) : from,
      toBlock: typeof to === "number" ? hex(to) : to,
    },
  ]);

const upstream = async (method: string, params: ReadonlyArray<unknown>) =>
  (await post(anvil.node().rpcUrl, call(method, params))).body.result;

/** Sends a transaction and waits until it is mined, so each one lands in a block of its own. */
const send = async (to: string, data = "0x"): Promise<string> => {
  const hash: string = await upstream("eth_sendTransaction", [{ from: FROM, to, data }]);
  while ((await upstream("eth_getTransactionReceipt", [hash])) === null) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return hash;
};

const proxies: ProviderProxy[] = [];
const proxyAs = async (
  style: ProviderStyle,
  options: Omit<ProviderProxyOptions, "target" | "style"> = {},
): Promise<ProviderProxy> => {
  const proxy = await startProviderProxy({ target: anvil.node().rpcUrl, style, ...options });
  proxies.push(proxy);
  return proxy;
};

beforeAll(async () => {
  await anvil.start();
  await upstream("anvil_setCode", [ONE_LOG, ONE_LOG_CODE]);
  await upstream("anvil_setCode", [MANY_LOGS, MANY_LOGS_CODE]);
  oldTx = await send(ONE_LOG);
  for (let i = 1; i < 12; i++) await send(ONE_LOG);
  await send(MANY_LOGS, manyLogsCalldata(6_000));
  await send(MANY_LOGS, manyLogsCalldata(6_000));
  await upstream("anvil_mine", [hex(2_000)]);
  for (let i = 0; i < 3; i++) newTx = await send(ONE_LOG);
  head = Number.parseInt(await upstream("eth_blockNumber", []), 16);
}, 120_000);

afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.stop()));
});

afterAll(async () => {
  await anvil.stop();
});

describe("the chain the proxy stands in front of", () => {
  it("setup: has the log layout the other tests count on", async () => {
    expect(head).toBe(2_017);
    expect(
      await upstream("eth_getLogs", [{ address: ONE_LOG, fromBlock: "0x0", toBlock: "latest" }]),
    ).toHaveLength(15);
    expect(
      await upstream("eth_getLogs", [{ address: MANY_LOGS, fromBlock: "0xd", toBlock: "0xd" }]),
    ).toHaveLength(6_000);
  });
});

describe("anvil style: a control that passes everything and counts it", () => {
  it("behavior: answers exactly as anvil does, singles and batches, and counts requests, methods and upstream calls", async () => {
    const proxy = await proxyAs("anvil");
    const query = logs(ONE_LOG, 0, "latest");
    expect((await post(proxy.url, query)).body).toEqual((await post(anvil.node().rpcUrl, query)).body);
    const batch = [call("eth_blockNumber", [], 1), call("eth_getBlockByNumber", ["0x1", false], 2)];
    expect((await post(proxy.url, batch)).body).toEqual((await post(anvil.node().rpcUrl, batch)).body);
    expect(proxy.stats()).toEqual({
      httpRequests: 2,
      batchRequests: 1,
      elements: 3,
      batchElements: 2,
      methods: { eth_getLogs: 1, eth_blockNumber: 1, eth_getBlockByNumber: 1 },
      refusals: { range: 0, results: 0, width: 0, rate: 0, batch: 0, method: 0, pruned: 0, lag: 0 },
      upstreamCalls: 2,
    });
    proxy.resetStats();
    expect(proxy.stats().httpRequests).toBe(0);
  });
});

describe("reth", () => {
  it("behavior: a range wider than --rpc.max-blocks-per-filter is refused with reth's text; to - from equal to it passes", async () => {
    const proxy = await proxyAs("reth", { maxLogsRange: 50 });
    const refused = await post(proxy.url, logs(ONE_LOG, 0, 51));
    expect(refused.status).toBe(200);
    expect(refused.body.error).toEqual({ code: -32602, message: "query exceeds max block range 50" });
    expect((await post(proxy.url, logs(ONE_LOG, 0, 50))).body.result).toHaveLength(12);
    expect(proxy.stats().refusals.range).toBe(1);
  });

  it("behavior: too many logs are refused with a retry range that then passes; one block is never capped", async () => {
    const proxy = await proxyAs("reth", { maxLogsResults: 5 });
    const refused = await post(proxy.url, logs(ONE_LOG, 1, 12));
    expect(refused.body.error).toEqual({
      code: -32602,
      message: "query exceeds max results 5, retry with the range 1-5",
    });
    expect((await post(proxy.url, logs(ONE_LOG, 1, 5))).body.result).toHaveLength(5);
    expect((await post(proxy.url, logs(MANY_LOGS, 13, 13))).body.result).toHaveLength(6_000);
    expect(proxy.stats().refusals.results).toBe(1);
  });

  it("behavior: a range past the head names the requested block and the head", async () => {
    const proxy = await proxyAs("reth");
    expect((await post(proxy.url, logs(ONE_LOG, head - 1, head + 5))).body.error).toEqual({
      code: -32602,
      message: `block range extends beyond current head block: requested ${head + 5}, head ${head}`,
    });
  });

  it("behavior: with a pruned window, old logs, receipts and state are refused in reth's words while recent ones and headers answer", async () => {
    const proxy = await proxyAs("reth", { prunedWindow: 100 });
    const earliest = head - 100;
    const history = {
      code: 4444,
      message: `pruned history unavailable: requested 1, earliest available ${earliest}`,
    };
    expect((await post(proxy.url, logs(ONE_LOG, 1, head))).body.error).toEqual(history);
    expect((await post(proxy.url, logs(ONE_LOG, earliest, head))).body.result).toHaveLength(3);
    expect((await post(proxy.url, call("eth_getBlockReceipts", ["0x1"]))).body.error).toEqual(history);
    expect((await post(proxy.url, call("eth_getTransactionReceipt", [oldTx]))).body.error).toEqual(history);
    expect((await post(proxy.url, call("eth_getTransactionReceipt", [newTx]))).body.result.status).toBe(
      "0x1",
    );

    // reth reads the state after block B from B + 1's change sets, and names that block.
    const state = { code: -32603, message: "state at block #2 is pruned" };
    const block1 = await upstream("eth_getBlockByNumber", ["0x1", false]);
    for (const at of ["0x1", { blockNumber: "0x1" }, { blockHash: block1.hash }]) {
      expect((await post(proxy.url, call("eth_getBalance", [FROM, at]))).body.error).toEqual(state);
    }
    expect((await post(proxy.url, call("eth_getCode", [ONE_LOG, hex(earliest)]))).body.result).toMatch(
      /^0x7f/,
    );
    expect((await post(proxy.url, call("eth_getBalance", [FROM, "latest"]))).body.result).toMatch(/^0x/);
    expect((await post(proxy.url, call("eth_getBlockByNumber", ["0x1", false]))).body.result.hash).toBe(
      block1.hash,
    );
    expect(proxy.stats().refusals.pruned).toBe(6);
  });

  it("behavior: debug, trace and block receipts can be switched off: -32601 Method not found", async () => {
    const proxy = await proxyAs("reth", { noDebug: true, noBlockReceipts: true });
    const notFound = { code: -32601, message: "Method not found" };
    expect((await post(proxy.url, call("debug_traceBlockByNumber", ["0x1", {}]))).body.error).toEqual(
      notFound,
    );
    expect((await post(proxy.url, call("trace_block", ["0x1"]))).body.error).toEqual(notFound);
    expect((await post(proxy.url, call("eth_getBlockReceipts", ["0x1"]))).body.error).toEqual(notFound);
    expect(proxy.stats().refusals.method).toBe(3);
  });
});

describe("geth", () => {
  it("behavior: a batch over 1,000 elements is one 'batch too large' carrying the first call's id; 1,000 pass", async () => {
    const proxy = await proxyAs("geth");
    const notification = { jsonrpc: "2.0", method: "eth_chainId", params: [] };
    const batch = (size: number) => [
      notification,
      ...Array.from({ length: size - 1 }, (_, i) => call("eth_chainId", [], i + 7)),
    ];
    const refused = await post(proxy.url, batch(1_001));
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual([
      { jsonrpc: "2.0", id: 7, error: { code: -32600, message: "batch too large" } },
    ]);
    const passed = await post(proxy.url, batch(1_000));
    expect(passed.body).toHaveLength(999);
    expect(passed.body[998]).toMatchObject({ id: 1_005, result: "0x7a69" });
    expect(proxy.stats().refusals.batch).toBe(1);
  });

  it("behavior: a log filter with over 1,000 alternatives in one position is refused in geth's words before its range is read; 1,000 pass", async () => {
    const proxy = await proxyAs("geth");
    const topics = (n: number) =>
      Array.from({ length: n }, (_, i) => `0x${(i + 1).toString(16).padStart(64, "0")}`);
    const filter = (n: number) =>
      call("eth_getLogs", [{ fromBlock: "0x0", toBlock: hex(head), topics: [null, topics(n)] }]);
    expect((await post(proxy.url, filter(1_001))).body.error).toEqual({
      code: -32000,
      message: "exceed max addresses or topics per search position",
    });
    expect((await post(proxy.url, filter(1_000))).body.result).toEqual([]);
    expect(proxy.stats().refusals.width).toBe(1);
  });

  it("behavior: a missing debug method is named in geth's words", async () => {
    const proxy = await proxyAs("geth", { noDebug: true });
    expect((await post(proxy.url, call("debug_traceBlockByNumber", ["0x1", {}]))).body.error).toEqual({
      code: -32601,
      message: "the method debug_traceBlockByNumber does not exist/is not available",
    });
  });

  it("behavior: pruned state names the block's state root; pruned logs are a bare 4444", async () => {
    const proxy = await proxyAs("geth", { prunedWindow: 100 });
    const block1 = await upstream("eth_getBlockByNumber", ["0x1", false]);
    expect((await post(proxy.url, call("eth_call", [{ to: ONE_LOG }, "0x1"]))).body.error).toEqual({
      code: -32000,
      message: `historical state ${block1.stateRoot.slice(2)} is not available`,
    });
    expect((await post(proxy.url, logs(ONE_LOG, 1, head))).body.error).toEqual({
      code: 4444,
      message: "pruned history unavailable",
    });
  });

  it("behavior: --rpc.rangelimit refuses in geth's words, and refuses any numbered start up to 'latest'", async () => {
    const proxy = await proxyAs("geth", { maxLogsRange: 50 });
    const tooWide = { code: -32602, message: "exceed maximum block range 50" };
    expect((await post(proxy.url, logs(ONE_LOG, 0, 51))).body.error).toEqual(tooWide);
    expect((await post(proxy.url, logs(ONE_LOG, 0, 50))).body.result).toHaveLength(12);
    expect((await post(proxy.url, logs(ONE_LOG, head - 1, "latest"))).body.error).toEqual(tooWide);
    expect((await post(proxy.url, logs(ONE_LOG, "latest", "latest"))).body.result).toHaveLength(1);
  });

  it("behavior: a lagging node reports its own head and does not know newer blocks", async () => {
    const proxy = await proxyAs("geth", { headLag: 1 });
    const visible = head - 1;
    expect((await post(proxy.url, call("eth_blockNumber", []))).body.result).toBe(hex(visible));
    expect((await post(proxy.url, call("eth_getBlockByNumber", ["latest", false]))).body.result.number).toBe(
      hex(visible),
    );
    expect((await post(proxy.url, call("eth_getBlockByNumber", [hex(head), false]))).body.result).toBeNull();
    expect((await post(proxy.url, call("eth_getBalance", [FROM, hex(head)]))).body.error).toEqual({
      code: -32000,
      message: "header not found",
    });
    expect((await post(proxy.url, call("eth_getTransactionReceipt", [newTx]))).body.result).toBeNull();
    expect((await post(proxy.url, logs(ONE_LOG, head - 5, "latest"))).body.result).toHaveLength(2);
    expect((await post(proxy.url, logs(ONE_LOG, head - 5, head))).body.error).toEqual({
      code: -32602,
      message: "block range extends beyond current head block",
    });
  });
});

describe("erigon", () => {
  it("behavior: a batch over 100 elements is refused with Erigon's text and the batch size", async () => {
    const proxy = await proxyAs("erigon");
    const batch = Array.from({ length: 101 }, (_, i) => call("eth_chainId", [], i + 1));
    expect((await post(proxy.url, batch)).body).toEqual([
      {
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32600,
          message:
            "batch limit 100 exceeded (can increase by --rpc.batch.limit). Requested batch of size: 101",
        },
      },
    ]);
    expect((await post(proxy.url, batch.slice(0, 100))).body).toHaveLength(100);
  });

  it("behavior: pruned logs and state both say where history starts", async () => {
    const proxy = await proxyAs("erigon", { prunedWindow: 100 });
    const pruned = {
      code: -32000,
      message: `old data not available due to pruning: requested block 1, history is available from block ${head - 100}`,
    };
    expect((await post(proxy.url, logs(ONE_LOG, 1, head))).body.error).toEqual(pruned);
    expect((await post(proxy.url, call("eth_getStorageAt", [ONE_LOG, "0x0", "0x1"]))).body.error).toEqual(
      pruned,
    );
  });

  it("behavior: an empty batch is one 'empty batch' object, as geth answers it", async () => {
    const proxy = await proxyAs("erigon");
    expect((await post(proxy.url, [])).body).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "empty batch" },
    });
  });
});

describe("infura", () => {
  it("behavior: more than 10,000 logs are refused with -32005 and a block range that then passes", async () => {
    const proxy = await proxyAs("infura");
    const refused = await post(proxy.url, logs(MANY_LOGS, 13, 14));
    expect(refused.status).toBe(200);
    expect(refused.body.error).toEqual({
      code: -32005,
      message: "query returned more than 10000 results. Try with this block range [0xd, 0xd].",
    });
    expect((await post(proxy.url, logs(MANY_LOGS, 13, 13))).body.result).toHaveLength(6_000);
  });

  it("behavior: a lowered result cap suggests the widest range that fits", async () => {
    const proxy = await proxyAs("infura", { maxLogsResults: 5 });
    expect((await post(proxy.url, logs(ONE_LOG, 1, 12))).body.error.message).toBe(
      "query returned more than 5 results. Try with this block range [0x1, 0x5].",
    );
    expect((await post(proxy.url, logs(ONE_LOG, 1, 5))).body.result).toHaveLength(5);
  });

  it("behavior: over the rate, the whole request is HTTP 429 with Retry-After and Infura's data", async () => {
    // One token a second: no token comes back while the six requests run, however slow the machine.
    const proxy = await proxyAs("infura", { rateLimit: { rps: 1, burst: 5 } });
    for (let i = 0; i < 5; i++) expect((await post(proxy.url, call("eth_chainId", []))).status).toBe(200);
    const refused = await post(proxy.url, call("eth_chainId", [], 42));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.body).toMatchObject({
      id: 42,
      error: {
        code: -32005,
        message: "project ID request rate exceeded",
        data: { allowed_rps: 1, backoff_seconds: 1, current_rps: 6 },
      },
    });
    const batch = await post(proxy.url, [call("eth_chainId", [], 1), call("eth_chainId", [], 2)]);
    expect(batch.status).toBe(429);
    expect(batch.body).toMatchObject({ id: null, error: { code: -32005 } });
    expect(proxy.stats().refusals.rate).toBe(2);
  });
});

describe("alchemy", () => {
  const capacity =
    "Your app has exceeded its compute units per second capacity. If you have retries enabled, you can safely ignore this message. If not, check out https://docs.alchemy.com/reference/throughput";

  it("behavior: above a 2K range more than 10K logs are refused with a range that then passes; up to 2K there is no cap", async () => {
    const proxy = await proxyAs("alchemy");
    const refused = await post(proxy.url, logs(MANY_LOGS, 0, 2_001));
    expect(refused.status).toBe(200);
    expect(refused.body.error).toEqual({
      code: -32602,
      message:
        "Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters and the response size limit, this block range should work: [0x0, 0xd]",
    });
    expect((await post(proxy.url, logs(MANY_LOGS, 0, 13))).body.result).toHaveLength(6_000);
    expect((await post(proxy.url, logs(MANY_LOGS, 0, 2_000))).body.result).toHaveLength(12_000);
  });

  it("behavior: a block-range cap is HTTP 400 -32600 with a suggested range of exactly that many blocks", async () => {
    const proxy = await proxyAs("alchemy", { maxLogsRange: 10 });
    const refused = await post(proxy.url, logs(ONE_LOG, 1, 11));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toEqual({
      code: -32600,
      message:
        "You can make eth_getLogs requests with up to a 10 block range. Based on your parameters, this block range should work: [0x1, 0xa]",
    });
    expect((await post(proxy.url, logs(ONE_LOG, 1, 10))).body.result).toHaveLength(10);
  });

  it("behavior: over the rate, a batch is answered with a 429 error in each element over budget; a single request is HTTP 429", async () => {
    const proxy = await proxyAs("alchemy", { rateLimit: { rps: 1, burst: 5 } });
    const batch = await post(
      proxy.url,
      Array.from({ length: 7 }, (_, i) => call("eth_chainId", [], i + 1)),
    );
    expect(batch.status).toBe(200);
    expect(batch.body.slice(0, 5).map((r: { result: string }) => r.result)).toEqual(Array(5).fill("0x7a69"));
    expect(batch.body.slice(5)).toEqual([
      { jsonrpc: "2.0", id: 6, error: { code: 429, message: capacity } },
      { jsonrpc: "2.0", id: 7, error: { code: 429, message: capacity } },
    ]);
    const single = await post(proxy.url, call("eth_chainId", [], 8));
    expect(single.status).toBe(429);
    expect(single.headers.get("retry-after")).toBe("1");
    expect(single.body).toEqual({ jsonrpc: "2.0", id: 8, error: { code: 429, message: capacity } });
    expect(proxy.stats().refusals.rate).toBe(3);
  });
});

describe("quicknode", () => {
  it("behavior: a range over the cap is HTTP 413 -32614 alone and an element error inside a batch", async () => {
    const proxy = await proxyAs("quicknode", { maxLogsRange: 1_000 });
    const refused = await post(proxy.url, logs(ONE_LOG, 0, 1_001));
    expect(refused.status).toBe(413);
    expect(refused.body.error).toEqual({ code: -32614, message: "eth_getLogs is limited to a 1,000 range" });
    expect((await post(proxy.url, logs(ONE_LOG, 0, 1_000))).body.result).toHaveLength(12);
    const inBatch = await post(proxy.url, [logs(ONE_LOG, 0, 1_001), call("eth_chainId", [], 2)]);
    expect(inBatch.status).toBe(200);
    expect(inBatch.body[0].error.code).toBe(-32614);
    expect(inBatch.body[1].result).toBe("0x7a69");
  });

  it("behavior: the default cap is 10,000 blocks", async () => {
    const proxy = await proxyAs("quicknode");
    expect((await post(proxy.url, logs(ONE_LOG, 0, 10_001))).body.error.message).toBe(
      "eth_getLogs is limited to a 10,000 range",
    );
  });

  it("behavior: every batch element counts against RPS: 26 at 25 RPS is 25 results and 1 error", async () => {
    const proxy = await proxyAs("quicknode", { rateLimit: { rps: 25 } });
    const batch = await post(
      proxy.url,
      Array.from({ length: 26 }, (_, i) => call("eth_chainId", [], i + 1)),
    );
    const errors = batch.body.filter((r: { error?: unknown }) => r.error !== undefined);
    expect(batch.body).toHaveLength(26);
    expect(errors).toEqual([
      {
        jsonrpc: "2.0",
        id: 26,
        error: {
          code: 429,
          message: "The requests per second (RPS) of your requests are higher than your plan allows.",
        },
      },
    ]);
  });

  it("behavior: a single request over budget is HTTP 429 with the same error and no Retry-After", async () => {
    const proxy = await proxyAs("quicknode", { rateLimit: { rps: 1, burst: 1 } });
    expect((await post(proxy.url, call("eth_chainId", [], 1))).status).toBe(200);
    const single = await post(proxy.url, call("eth_chainId", [], 2));
    expect(single.status).toBe(429);
    expect(single.headers.get("retry-after")).toBeNull();
    expect(single.body).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: {
        code: 429,
        message: "The requests per second (RPS) of your requests are higher than your plan allows.",
      },
    });
  });
});

describe("a node that hangs, goes away or changes", () => {
  it("behavior: a frozen proxy holds requests unanswered until thawed", async () => {
    const proxy = await proxyAs("anvil");
    proxy.freeze();
    const pending = post(proxy.url, call("eth_chainId", []));
    const early = await Promise.race([
      pending,
      new Promise((resolve) => setTimeout(() => resolve("waiting"), 300)),
    ]);
    expect(early).toBe("waiting");
    proxy.thaw();
    expect((await pending).body.result).toBe("0x7a69");
  });

  it("behavior: a downed proxy refuses connections and answers again on the same URL once up", async () => {
    const proxy = await proxyAs("anvil");
    expect((await post(proxy.url, call("eth_chainId", []))).status).toBe(200);
    await proxy.down();
    await expect(post(proxy.url, call("eth_chainId", []))).rejects.toThrow();
    await proxy.up();
    expect((await post(proxy.url, call("eth_chainId", []))).body.result).toBe("0x7a69");
  });

  it("behavior: set changes the style and caps at run time; an undefined cap returns to the style's default", async () => {
    const proxy = await proxyAs("anvil");
    const query = logs(ONE_LOG, 1, 12);
    expect((await post(proxy.url, query)).body.result).toHaveLength(12);
    proxy.set({ style: "reth", maxLogsResults: 5 });
    expect((await post(proxy.url, query)).body.error.code).toBe(-32602);
    proxy.set({ maxLogsResults: undefined });
    expect((await post(proxy.url, query)).body.result).toHaveLength(12);
  });

  it("behavior: caps a style has no known words for are rejected rather than invented", async () => {
    await expect(
      startProviderProxy({ target: anvil.node().rpcUrl, style: "geth", maxLogsResults: 5 }),
    ).rejects.toThrow(/geth has no known refusal text for maxLogsResults/);
  });

  it("behavior: odd input is answered as a node would and the proxy keeps serving", async () => {
    const proxy = await proxyAs("geth");
    expect((await post(proxy.url, "not json")).body).toEqual(
      (await post(anvil.node().rpcUrl, "not json")).body,
    );
    expect((await post(proxy.url, [1, null, call("eth_chainId", [], 3)])).body).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "invalid request" } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "invalid request" } },
      { jsonrpc: "2.0", id: 3, result: "0x7a69" },
    ]);
    expect((await post(proxy.url, call("eth_chainId", []))).body.result).toBe("0x7a69");
  });
});
