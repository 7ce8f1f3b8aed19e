import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { ChainRpc } from "../../../src/chains/rpc/ChainRpc.js";
import type { RpcFaultDetail } from "../../../src/chains/rpc/ChainRpcError.js";
import { FairSlots } from "../../../src/chains/rpc/fairSlots.js";
import { RpcEndpoint } from "../../../src/chains/rpc/RpcEndpoint.js";
import { makeMetrics } from "../../../src/metrics/Metrics.js";
import { fakeChainRpc } from "../../support/chainRpc.js";
import { hasSample, parseSamples, sampleValue } from "../../support/prometheusText.js";

const rateLimited: RpcFaultDetail = { reason: "RateLimited", detail: "429 Too Many Requests" };
const refused: RpcFaultDetail = { reason: "Unavailable", detail: "connection refused (ECONNREFUSED)" };
const reverted: RpcFaultDetail = { reason: "Rejected", detail: "execution reverted" };

/** An endpoint that is never sent anything here: the tests write its health as calls would. */
const idleEndpoint = (label: string, maxRps?: number) =>
  new RpcEndpoint(
    label,
    {
      url: label,
      maxConcurrency: 4,
      maxBatch: 40,
      timeoutMs: 1_000,
      ...(maxRps === undefined ? {} : { maxRps }),
    },
    () => Effect.die("not sent anything in this test"),
    new FairSlots(4),
  );

const chainOf = (chainId: number, name: string, endpoints: ReadonlyArray<RpcEndpoint>) =>
  new ChainRpc(
    { chainId, name, maxHeadLag: 5, maxLogsRange: 10_000 },
    endpoints,
    Effect.runSync(Effect.runtime<never>()),
  );

/**
 * Ethereum with four endpoints: `ok` (archive, traces, 25 rps configured), `behind` (20 blocks
 * behind, pruned, no traces, rate limited once), `down` (unreachable) and `silent` (not answered yet).
 */
const ethereum = () => {
  const now = Date.now();
  const ok = idleEndpoint("https://eth.example/v2/***", 25);
  ok.health.observeHead(120, now);
  ok.health.answered(40);
  ok.health.answered(60);
  ok.health.capabilities = {
    chainId: 1,
    stateFrom: 0,
    logsFrom: 0,
    traces: true,
    blockReceipts: true,
    probedAt: now,
  };
  const behind = idleEndpoint("https://rpc.behind.example");
  behind.health.observeHead(100, now);
  behind.health.answered(10);
  behind.health.refused(rateLimited, now);
  behind.health.capabilities = { chainId: 1, stateFrom: 90, logsFrom: 50, traces: false, probedAt: now };
  const down = idleEndpoint("http://10.0.0.9:8545");
  down.health.failed(refused, now);
  const silent = idleEndpoint("http://10.0.0.10:8545");
  return { rpc: chainOf(1, "ethereum", [ok, behind, down, silent]), ok, behind, down, silent };
};

const scrape = async (metrics: ReturnType<typeof makeMetrics>) =>
  parseSamples(await metrics.registry.metrics());

const at = (endpoint: string, chain_id = "1") => ({ chain_id, endpoint });

describe("RPC endpoint metrics", () => {
  it("behavior: each endpoint's state, lag, latency, rate limit, requests, errors and refusals, and the chain's capabilities, are scraped", async () => {
    const metrics = makeMetrics({ teams: [] });
    const eth = ethereum();
    metrics.watchRpc(() => [eth.rpc]);
    const samples = await scrape(metrics);

    const up = (url: string) => sampleValue(samples, "svc_rpc_endpoint_up", at(url));
    expect(up("https://eth.example/v2/***")).toBe(1);
    expect(up("https://rpc.behind.example")).toBe(1); // lagging still answers, off the head reads
    expect(up("http://10.0.0.9:8545")).toBe(0);
    expect(up("http://10.0.0.10:8545")).toBe(0);
    expect(
      hasSample(samples, "svc_rpc_endpoint_up", { chain: "ethereum", ...at("http://10.0.0.10:8545") }),
    ).toBe(true);

    expect(sampleValue(samples, "svc_rpc_endpoint_head_lag_blocks", at("https://eth.example/v2/***"))).toBe(
      0,
    );
    expect(sampleValue(samples, "svc_rpc_endpoint_head_lag_blocks", at("https://rpc.behind.example"))).toBe(
      20,
    );
    expect(hasSample(samples, "svc_rpc_endpoint_head_lag_blocks", at("http://10.0.0.9:8545"))).toBe(false);

    // 40 ms, then 60 ms weighing a fifth: 44 ms.
    expect(
      sampleValue(samples, "svc_rpc_endpoint_latency_seconds", at("https://eth.example/v2/***")),
    ).toBeCloseTo(0.044, 6);
    expect(hasSample(samples, "svc_rpc_endpoint_latency_seconds", at("http://10.0.0.10:8545"))).toBe(false);

    expect(sampleValue(samples, "svc_rpc_rate_limit_rps", at("https://eth.example/v2/***"))).toBe(25);
    expect(hasSample(samples, "svc_rpc_rate_limit_rps", at("https://rpc.behind.example"))).toBe(false);

    expect(sampleValue(samples, "svc_rpc_requests_total", at("https://eth.example/v2/***"))).toBe(2);
    expect(sampleValue(samples, "svc_rpc_requests_total", at("https://rpc.behind.example"))).toBe(2);
    expect(sampleValue(samples, "svc_rpc_errors_total", at("https://rpc.behind.example"))).toBe(1);
    expect(sampleValue(samples, "svc_rpc_errors_total", at("http://10.0.0.9:8545"))).toBe(1);
    expect(sampleValue(samples, "svc_rpc_errors_total", at("http://10.0.0.10:8545"))).toBe(0);
    const refusals = (url: string, reason: string) =>
      sampleValue(samples, "svc_rpc_refusals_total", { ...at(url), reason });
    expect(refusals("https://rpc.behind.example", "rate_limited")).toBe(1);
    expect(refusals("http://10.0.0.9:8545", "unavailable")).toBe(1);
    // Every reason has its series from the start, at 0: the first refusal is an increase, not a new series.
    expect(refusals("https://eth.example/v2/***", "rate_limited")).toBe(0);
    expect(
      hasSample(samples, "svc_rpc_refusals_total", {
        ...at("https://eth.example/v2/***"),
        reason: "too_many_results",
      }),
    ).toBe(true);
    const reasons = new Set(
      samples.filter((s) => s.name === "svc_rpc_refusals_total").map((s) => s.labels.reason),
    );
    expect(reasons.size).toBe(11);

    const chain = { chain_id: "1", chain: "ethereum" };
    expect(sampleValue(samples, "svc_rpc_state_from_block", chain)).toBe(0);
    expect(sampleValue(samples, "svc_rpc_logs_from_block", chain)).toBe(0);
    expect(sampleValue(samples, "svc_rpc_traces", chain)).toBe(1);
  });

  it("behavior: calls through ChainRpc move the counters, which only grow, also when the chain's access is replaced", async () => {
    const metrics = makeMetrics({ teams: [] });
    let answer: "ok" | "revert" = "ok";
    const calls = () =>
      fakeChainRpc(
        () => ({
          kind: "answers",
          answers: [answer === "ok" ? { ok: true, result: "0x10" } : { ok: false, fault: reverted }],
        }),
        10,
      );
    let rpc = calls();
    metrics.watchRpc(() => [rpc]);
    const url = { chain_id: "10", endpoint: "http://fake.invalid" };
    const call = () => Effect.runPromise(Effect.either(rpc.call("eth_blockNumber", [], { head: true })));

    await call();
    await call();
    let samples = await scrape(metrics);
    expect(sampleValue(samples, "svc_rpc_requests_total", url)).toBe(2);
    expect(sampleValue(samples, "svc_rpc_errors_total", url)).toBe(0);
    // The chain is not probed: no capability series rather than a guess.
    expect(hasSample(samples, "svc_rpc_traces", { chain_id: "10" })).toBe(false);
    expect(hasSample(samples, "svc_rpc_state_from_block", { chain_id: "10" })).toBe(false);

    answer = "revert";
    await call();
    samples = await scrape(metrics);
    expect(sampleValue(samples, "svc_rpc_requests_total", url)).toBe(3);
    expect(sampleValue(samples, "svc_rpc_errors_total", url)).toBe(1);
    expect(sampleValue(samples, "svc_rpc_refusals_total", { ...url, reason: "rejected" })).toBe(1);

    // A scrape with nothing new leaves every counter where it was.
    samples = await scrape(metrics);
    expect(sampleValue(samples, "svc_rpc_requests_total", url)).toBe(3);

    // A new ChainRpc for the chain counts from 0 again: the series goes on from 3, never down.
    rpc = calls();
    await call();
    samples = await scrape(metrics);
    expect(sampleValue(samples, "svc_rpc_requests_total", url)).toBe(4);
    expect(sampleValue(samples, "svc_rpc_errors_total", url)).toBe(2);
    expect(sampleValue(samples, "svc_rpc_refusals_total", { ...url, reason: "rejected" })).toBe(2);
  });

  it("edge: roles sharing the process's chains count each once; chains never asked anything are left out", async () => {
    const metrics = makeMetrics({ teams: [] });
    const eth = ethereum();
    const standby = chainOf(8453, "base", [idleEndpoint("https://base.example")]);
    metrics.watchRpc(() => [eth.rpc, standby]);
    metrics.watchRpc(() => [eth.rpc, standby]);
    const samples = await scrape(metrics);
    expect(sampleValue(samples, "svc_rpc_requests_total", at("https://eth.example/v2/***"))).toBe(2);
    expect(samples.filter((s) => s.name === "svc_rpc_endpoint_up")).toHaveLength(4);
    expect(samples.some((s) => s.labels.chain_id === "8453")).toBe(false);
  });

  it("edge: two endpoints whose URLs mask alike (one provider, two keys) keep a series each", async () => {
    const metrics = makeMetrics({ teams: [] });
    const first = idleEndpoint("https://eth-mainnet.g.alchemy.com/v2/***");
    const second = idleEndpoint("https://eth-mainnet.g.alchemy.com/v2/***");
    first.health.answered(10);
    second.health.answered(10);
    second.health.answered(10);
    metrics.watchRpc(() => [chainOf(1, "ethereum", [first, second])]);
    const samples = await scrape(metrics);
    expect(
      sampleValue(samples, "svc_rpc_requests_total", at("https://eth-mainnet.g.alchemy.com/v2/***")),
    ).toBe(1);
    expect(
      sampleValue(samples, "svc_rpc_requests_total", at("https://eth-mainnet.g.alchemy.com/v2/*** #2")),
    ).toBe(2);
  });
});
