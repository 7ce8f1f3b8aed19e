import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect, Option } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKey } from "../../../src/api/keys/KeyStore.js";
import { type AnvilInstance, startAnvil } from "../../../src/devnet/AnvilProcess.js";
import { devAccount } from "../../../src/devnet/devAccounts.js";
import { MULTICALL3_ADDRESS, MULTICALL3_RUNTIME_CODE } from "../../../src/devnet/multicall3.js";
import { freePort } from "../../../src/lib/freePort.js";
import { adminBuckets } from "../../support/anvilService.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { hasSample, parseSamples, type Sample, sampleValue } from "../../support/prometheusText.js";
import {
  eventually,
  type RunningService,
  startService,
  writeChainsFile,
} from "../../support/serviceHarness.js";
import { addressOf, callerFor, WEBHOOKS } from "../../support/webhookEnv.js";
import { type Receiver, startReceiver } from "../../support/webhookReceiver.js";

const TOKEN = "metrics-token-0123456789abcdef";

let nats: TestNats;
let anvil: AnvilInstance;
let gateway: RunningService;
let api: RunningService;
let ingest: RunningService;
let receiver: Receiver;
let apiMetrics: string;
let ingestMetrics: string;

beforeAll(async () => {
  nats = await startTestNats();
  anvil = await startAnvil({ chainId: 1 });
  receiver = await startReceiver();
  // Balance reads go through Multicall3, which a bare anvil chain lacks.
  await rpc("anvil_setCode", [MULTICALL3_ADDRESS, MULTICALL3_RUNTIME_CODE]);
  const chainsConfig = await writeChainsFile(await mkdtemp(join(tmpdir(), "svc-metrics-")), [
    // Every wallet's touches recorded: the repeated request below is answered from the reply cache,
    // which an answer still discovering its wallet never is.
    { chainId: 1, name: "ethereum", rpcUrl: anvil.rpcUrl, extra: { index_wallets: "all" } },
  ]);
  const [apiPort, ingestPort] = [await freePort(), await freePort()];
  apiMetrics = `http://127.0.0.1:${apiPort}/metrics`;
  ingestMetrics = `http://127.0.0.1:${ingestPort}/metrics`;
  // Three processes, one role each, as a scaled-out deployment runs them.
  ingest = await startService(nats, {
    chainsConfig,
    roles: ["ingest"],
    settings: { metricsPort: Option.some(ingestPort) },
  });
  api = await startService(nats, {
    chainsConfig,
    roles: ["api"],
    settings: {
      metricsPort: Option.some(apiPort),
      webhookAllowHttp: true,
      webhookAllowedHosts: ["127.0.0.0/8"],
    },
  });
  gateway = await startService(nats, {
    chainsConfig,
    roles: ["gateway"],
    settings: { metricsToken: Option.some(TOKEN) },
  });
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
  await api?.stop();
  await ingest?.stop();
  await receiver?.stop();
  await anvil?.stop();
  await nats?.stop();
});

const scrape = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { headers });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseSamples(await res.text());
};
const scrapeGateway = () => scrape(`${gateway.baseUrl}/metrics`, { authorization: `Bearer ${TOKEN}` });

/** Waits until `check` holds on a fresh scrape of `read`, and returns that scrape. */
const scrapeUntil = async (
  read: () => Promise<ReadonlyArray<Sample>>,
  check: (samples: ReadonlyArray<Sample>) => boolean,
  what: string,
) => {
  let last: ReadonlyArray<Sample> = [];
  await eventually(
    async () => {
      last = await read();
      return check(last);
    },
    60_000,
    what,
  );
  return last;
};

/** A new API key of `team`, made as the admin CLI makes them. */
const keyOf = async (team: string) => {
  const admin = await nats.connectAs("admin");
  try {
    return (await Effect.runPromise(createKey(await adminBuckets(admin), team))).key;
  } finally {
    await admin.close();
  }
};

const rpc = async (method: string, params: ReadonlyArray<unknown>) => {
  const res = await fetch(anvil.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
};

describe("Prometheus metrics", { timeout: 180_000 }, () => {
  it("behavior: the gateway serves /metrics only with METRICS_TOKEN as a bearer token", async () => {
    expect((await fetch(`${gateway.baseUrl}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${gateway.baseUrl}/metrics`, { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: "UNAUTHORIZED_METRICS" });
    const samples = await scrapeGateway();
    // Process metrics and the gateway's NATS connection.
    expect(sampleValue(samples, "svc_process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(sampleValue(samples, "svc_nats_connected", { user: "gateway" })).toBe(1);
    expect(hasSample(samples, "svc_nats_reconnects_total", { user: "gateway" })).toBe(true);
  });

  it("behavior: every process kind is scraped; a request moves the gateway's and the API worker's counters", async () => {
    const key = await keyOf("metered");
    const wallet = addressOf(0xbeef);
    const route = { route: "/v1/evm/balances/{address}", method: "GET", status: "200" };
    const cu = { team: "metered", endpoint: "getBalances" };

    // The API worker has indexed the chain before balances can be answered.
    await scrapeUntil(
      () => scrape(apiMetrics),
      (s) => hasSample(s, "svc_indexed_block", { chain_id: "1", chain: "ethereum" }),
      "the API worker's indexed block",
    );
    const gatewayBefore = await scrapeGateway();
    const apiBefore = await scrape(apiMetrics);
    expect(sampleValue(apiBefore, "svc_nats_connected", { user: "api" })).toBe(1);

    const call = () =>
      fetch(`${gateway.baseUrl}/v1/evm/balances/${wallet}?chain_ids=1`, {
        headers: { "x-svc-api-key": key },
      });
    const first = await call();
    const firstBody = await first.text();
    expect(first.status, firstBody).toBe(200);
    expect((await call()).status).toBe(200);

    const gatewayAfter = await scrapeGateway();
    expect(sampleValue(gatewayAfter, "svc_http_requests_total", route)).toBe(
      sampleValue(gatewayBefore, "svc_http_requests_total", route) + 2,
    );
    expect(sampleValue(gatewayAfter, "svc_http_request_duration_seconds_count", route)).toBe(
      sampleValue(gatewayBefore, "svc_http_request_duration_seconds_count", route) + 2,
    );
    // Each request went to an API worker over the gateway's NATS connection and came back on it.
    const traffic = (samples: typeof gatewayAfter, name: string, direction: string) =>
      sampleValue(samples, name, { user: "gateway", direction });
    for (const direction of ["in", "out"])
      expect(traffic(gatewayAfter, "svc_nats_messages_total", direction)).toBeGreaterThanOrEqual(
        traffic(gatewayBefore, "svc_nats_messages_total", direction) + 2,
      );
    expect(traffic(gatewayAfter, "svc_nats_bytes_total", "in")).toBeGreaterThanOrEqual(
      traffic(gatewayBefore, "svc_nats_bytes_total", "in") + 2 * firstBody.length,
    );
    // The wallet address is not a label: the route template is.
    expect(gatewayAfter.some((s) => Object.values(s.labels).includes(wallet))).toBe(false);

    const apiAfter = await scrape(apiMetrics);
    expect(sampleValue(apiAfter, "svc_compute_units_total", cu)).toBe(
      sampleValue(apiBefore, "svc_compute_units_total", cu) + 2,
    );
    expect(sampleValue(apiAfter, "svc_api_requests_total", { endpoint: "getBalances", status: "200" })).toBe(
      sampleValue(apiBefore, "svc_api_requests_total", { endpoint: "getBalances", status: "200" }) + 2,
    );
    // The second identical request at the same block is answered from the reply kept for it.
    const hits = { cache: "api_replies", result: "hit" };
    expect(sampleValue(apiAfter, "svc_cache_lookups_total", hits)).toBeGreaterThan(
      sampleValue(apiBefore, "svc_cache_lookups_total", hits),
    );
    expect(sampleValue(apiAfter, "svc_cache_hit_ratio", { cache: "api_replies" })).toBeGreaterThan(0);

    // An unauthenticated call is counted with its status and charges nothing.
    const refused = await fetch(`${gateway.baseUrl}/v1/evm/balances/${wallet}`);
    expect(refused.status).toBe(401);
    const gatewayRefused = await scrapeGateway();
    expect(
      sampleValue(gatewayRefused, "svc_http_requests_total", { ...route, status: "401" }),
    ).toBeGreaterThanOrEqual(1);
  });

  it("behavior: a new block moves the ingest head and processed block and the API worker's indexed block", async () => {
    const ingestBefore = await scrapeUntil(
      () => scrape(ingestMetrics),
      (s) => hasSample(s, "svc_ingest_processed_block", { chain_id: "1" }),
      "the follower's first published block",
    );
    expect(sampleValue(ingestBefore, "svc_nats_connected", { user: "ingest" })).toBe(1);
    expect(hasSample(ingestBefore, "svc_ingest_lag_blocks", { chain_id: "1", chain: "ethereum" })).toBe(true);
    const processed = sampleValue(ingestBefore, "svc_ingest_processed_block", { chain_id: "1" });

    await rpc("anvil_mine", ["0x3"]);
    const target = processed + 3;
    const ingestAfter = await scrapeUntil(
      () => scrape(ingestMetrics),
      (s) => sampleValue(s, "svc_ingest_processed_block", { chain_id: "1" }) >= target,
      `processed block ${target}`,
    );
    expect(sampleValue(ingestAfter, "svc_ingest_head_block", { chain_id: "1" })).toBeGreaterThanOrEqual(
      target,
    );
    await scrapeUntil(
      () => scrape(apiMetrics),
      (s) => sampleValue(s, "svc_indexed_block", { chain_id: "1" }) >= target,
      `indexed block ${target}`,
    );
  });

  it("behavior: a webhook delivery moves the delivered counter and the notifier's phases; the outbox gauges are exported", async () => {
    const call = callerFor(gateway.baseUrl, await keyOf("hooked"));
    const watched = addressOf(0xfeed);
    const created = await call("POST", WEBHOOKS, {
      name: "metrics",
      url: receiver.url,
      type: "transactions",
      addresses: [watched],
    });
    expect(created.status, created.text).toBe(200);
    const before = await scrape(apiMetrics);
    expect(hasSample(before, "svc_webhook_outbox_depth")).toBe(true);
    expect(hasSample(before, "svc_webhook_retries_scheduled")).toBe(true);
    expect(hasSample(before, "svc_webhook_dead_letters")).toBe(true);
    const delivered = sampleValue(before, "svc_webhook_deliveries_total", { outcome: "delivered" });
    const PHASES = ["plan", "deliveries", "records"];
    const planned = (s: ReadonlyArray<Sample>, phase: string) =>
      sampleValue(s, "svc_webhook_notifier_phase_seconds_count", { phase });
    const seconds = (s: ReadonlyArray<Sample>, phase: string) =>
      sampleValue(s, "svc_webhook_notifier_phase_seconds_sum", { phase });

    await rpc("eth_sendTransaction", [{ from: devAccount(0).address, to: watched, value: "0x1" }]);
    const after = await scrapeUntil(
      () => scrape(apiMetrics),
      (s) =>
        sampleValue(s, "svc_webhook_deliveries_total", { outcome: "delivered" }) > delivered &&
        // Observed once the block's records are written, just after its delivery is answered.
        PHASES.every((phase) => planned(s, phase) > planned(before, phase)),
      "a delivered webhook counted, and the notifier's phases for its block",
    );
    expect(receiver.received.length).toBeGreaterThanOrEqual(1);
    // The block's first attempt was answered while the notifier held it: that wait is its deliveries phase.
    expect(seconds(after, "deliveries")).toBeGreaterThan(seconds(before, "deliveries"));
  });

  it("failure: a NATS restart shows as disconnected, then as a reconnect", async () => {
    const user = { user: "ingest" };
    const before = await scrape(ingestMetrics);
    expect(sampleValue(before, "svc_nats_connected", user)).toBe(1);
    // The broker is down for 5 s; the metrics port keeps answering meanwhile.
    const restarted = nats.restart(5_000);
    await scrapeUntil(
      () => scrape(ingestMetrics),
      (s) => sampleValue(s, "svc_nats_connected", user) === 0,
      "the ingest connection reported down",
    );
    await restarted;
    const after = await scrapeUntil(
      () => scrape(ingestMetrics),
      (s) => sampleValue(s, "svc_nats_connected", user) === 1,
      "the ingest connection reported up again",
    );
    expect(sampleValue(after, "svc_nats_disconnects_total", user)).toBeGreaterThanOrEqual(
      sampleValue(before, "svc_nats_disconnects_total", user) + 1,
    );
    expect(sampleValue(after, "svc_nats_reconnects_total", user)).toBeGreaterThanOrEqual(
      sampleValue(before, "svc_nats_reconnects_total", user) + 1,
    );
  });
});
