import { connect as tcpConnect } from "node:net";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAdmin } from "../../../src/admin/AdminClient.js";
import type { KeyBuckets } from "../../../src/api/keys/KeyStore.js";
import { adminChainsStatus } from "../../../src/contracts/Admin.js";
import { RateLimit } from "../../../src/domain/ApiKey.js";
import { type AnvilService, startAnvilService } from "../../support/anvilService.js";
import { eventually, type RunningService } from "../../support/serviceHarness.js";

let env: AnvilService;
let service: RunningService;
let buckets: KeyBuckets;
let key: string;

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${service.baseUrl}${path}`, { headers });
const withKey = (k: string = key) => ({ "x-svc-api-key": k });

beforeAll(async () => {
  env = await startAnvilService(["default", "mainnet"]);
  ({ service, buckets } = env);
  key = (await env.createKey("acme")).key;
});

afterAll(async () => {
  await env?.stop();
});

describe("gateway and api workers", () => {
  it("default: /healthz turns 200 once every role is up and the chain answers", async () => {
    await eventually(async () => (await get("/healthz")).status === 200, 30_000, "healthz 200");
    const body = (await (await get("/healthz")).json()) as {
      status: string;
      roles: Record<string, number>;
      chains: unknown;
    };
    expect(body.status).toBe("ok");
    expect(body.roles.gateway).toBeGreaterThanOrEqual(1);
    expect(body.roles.api).toBeGreaterThanOrEqual(1);
    expect(body.chains).toEqual([
      expect.objectContaining({ chain_id: 1, name: "ethereum", ok: true, ingest_mode: "live", lag: 0 }),
    ]);
    const { chains } = await Effect.runPromise(callAdmin(env.admin, adminChainsStatus, {}));
    expect(chains).toEqual([
      expect.objectContaining({ chain_id: 1, mode: "live", processed: 0, lag: 0, rpc_errors: 0 }),
    ]);
  });

  it("behavior: supported-chains is public, costs 0 CU and lists per-endpoint support and what the node answers", async () => {
    const res = await get("/v1/evm/supported-chains");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-compute-units")).toBe("0");
    expect(await res.json()).toEqual({
      chains: [
        {
          name: "ethereum",
          chain_id: 1,
          tags: ["default", "mainnet"],
          balances: { supported: true },
          defi_positions: { supported: true },
          subscriptions: { supported: true },
          // A fresh anvil keeps every block's state; its index starts at block 0; traces are not configured.
          indexed_from_block: 0,
          historical_prices: { state_from_block: 0 },
          internal_transfers: { supported: false },
        },
      ],
    });
  });

  it("behavior: an authenticated request gets the team, the request id and its CU", async () => {
    const res = await get("/v1/account", { ...withKey(), "x-request-id": "req-123" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("req-123");
    expect(res.headers.get("x-compute-units")).toBe("0");
    const body = await res.json();
    expect(body).toMatchObject({ team_name: "acme", monthly_cu_quota: null, cu_used_this_month: 0 });
  });

  it("behavior: a request id is generated when none (or a hostile one) is given", async () => {
    const res = await get("/v1/account", { ...withKey(), "x-request-id": "a b;<script>" });
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("error: 401 says whether the key is missing, malformed, unknown or revoked", async () => {
    const missing = await get("/v1/account");
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({
      error: "The X-Svc-Api-Key header is missing.",
      code: "MISSING_API_KEY",
    });
    // Another product's key header counts only when API_KEY_HEADERS names it (off by default).
    expect(await (await get("/v1/account", { "x-api-key": key })).json()).toMatchObject({
      code: "MISSING_API_KEY",
    });
    expect(await (await get("/v1/account", withKey("svc_short"))).json()).toMatchObject({
      code: "MALFORMED_API_KEY",
    });
    const unknown = `svc_${"A".repeat(43)}`;
    expect(await (await get("/v1/account", withKey(unknown))).json()).toMatchObject({
      code: "UNKNOWN_API_KEY",
    });
    const doomed = await env.createKey("acme");
    expect((await get("/v1/account", withKey(doomed.key))).status).toBe(200);
    const { revokeKey } = await import("../../../src/api/keys/KeyStore.js");
    await Effect.runPromise(revokeKey(buckets, doomed.record.key_id));
    await eventually(
      async () => (await get("/v1/account", withKey(doomed.key))).status === 401,
      30_000,
      "revocation",
    );
    expect(await (await get("/v1/account", withKey(doomed.key))).json()).toMatchObject({
      code: "REVOKED_API_KEY",
    });
  });

  it("error: unknown route 404 and wrong method 405 with Allow, both JSON", async () => {
    const notFound = await get("/v1/nothing/here");
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({ code: "NOT_FOUND" });
    expect(notFound.headers.get("x-compute-units")).toBe("0");
    const wrong = await fetch(`${service.baseUrl}/v1/evm/supported-chains`, { method: "DELETE" });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("x-compute-units")).toBe("0");
    expect(wrong.headers.get("allow")).toBe("GET");
    expect(await wrong.json()).toMatchObject({ code: "METHOD_NOT_ALLOWED" });
  });

  it("error: bodies over 1 MiB are 413, wrong content type 415, malformed JSON and bad UTF-8 400", async () => {
    const post = (body: string | Uint8Array, type = "application/json") =>
      fetch(`${service.baseUrl}/beta/evm/subscriptions/webhooks`, {
        method: "POST",
        headers: { ...withKey(), "content-type": type },
        body,
      });
    const big = await post(JSON.stringify({ name: "x".repeat(1024 * 1024 + 10) }));
    expect(big.status).toBe(413);
    expect(big.headers.get("x-compute-units")).toBe("0");
    expect(await big.json()).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    expect(await (await post("{}", "text/plain")).json()).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE" });
    const wrongType = await post("{}", "text/plain");
    expect(wrongType.status).toBe(415);
    expect(wrongType.headers.get("x-compute-units")).toBe("0");
    const malformed = await post('{"name": ');
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get("x-compute-units")).toBe("0");
    expect(await malformed.json()).toMatchObject({ code: "MALFORMED_JSON" });
    const badUtf8 = await post(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
    expect(badUtf8.status).toBe(400);
    expect(await badUtf8.json()).toMatchObject({ code: "INVALID_ENCODING" });
  });

  it("error: repeated, too many or huge query parameters are 4xx", async () => {
    const repeated = await get("/v1/evm/supported-chains?chain_ids=1&chain_ids=2");
    expect(repeated.status).toBe(400);
    expect(repeated.headers.get("x-compute-units")).toBe("0");
    expect(await repeated.json()).toMatchObject({ code: "DUPLICATE_QUERY_PARAMETER" });
    const many = Array.from({ length: 100 }, (_, i) => `p${i}=1`).join("&");
    expect((await get(`/v1/evm/supported-chains?${many}`)).status).toBe(400);
    const huge = await get(`/v1/evm/supported-chains?x=${"a".repeat(10_000)}`);
    expect(huge.status).toBe(414);
    // Past the HTTP parser's 16 KB request head, URL or headers alike: refused before the URL is read.
    const hugest = await get(`/v1/evm/supported-chains?x=${"a".repeat(24_000)}`);
    expect(hugest.status).toBe(431);
    expect(await hugest.json()).toMatchObject({ code: "HEADERS_TOO_LARGE" });
    const bigHeader = await get("/v1/evm/supported-chains", { "x-padding": "b".repeat(20_000) });
    expect(bigHeader.status).toBe(431);
    expect(await bigHeader.json()).toMatchObject({ code: "HEADERS_TOO_LARGE" });
  });

  it("error: a header with control characters gets a JSON 400 and the server stays up", async () => {
    const raw = await new Promise<string>((resolve) => {
      const socket = tcpConnect({ host: "127.0.0.1", port: service.port }, () => {
        socket.write("GET /v1/account HTTP/1.1\r\nHost: x\r\nX-Svc-Api-Key: a\u0001b\r\n\r\n");
      });
      let data = "";
      socket.on("data", (chunk) => (data += chunk.toString()));
      socket.on("end", () => resolve(data));
      socket.on("error", () => resolve(data));
    });
    expect(raw).toMatch(/^HTTP\/1.1 400/);
    expect(raw).toMatch(/\r\nx-compute-units: 0\r\n/);
    expect(raw).toContain('"code":"BAD_HTTP_REQUEST"');
    expect((await get("/v1/evm/supported-chains")).status).toBe(200);
  });

  it("behavior: what the gateway answers itself carries x-compute-units 0 too", async () => {
    expect((await get("/openapi.json")).headers.get("x-compute-units")).toBe("0");
    const preflight = await fetch(`${service.baseUrl}/v1/account`, { method: "OPTIONS" });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("x-compute-units")).toBe("0");
    const huge = await get("/v1/account", { ...withKey(), "x-padding": "a".repeat(20_000) });
    expect(huge.status).toBe(431);
    expect(huge.headers.get("x-compute-units")).toBe("0");
  });

  it("behavior: the DeFi positions endpoint authenticates, then answers at 2 CU per chain", async () => {
    expect((await get("/beta/evm/defi/positions/0xd8da6bf26964af9d7eed9e03e53415d37aa96045")).status).toBe(
      401,
    );
    const res = await get("/beta/evm/defi/positions/0xd8da6bf26964af9d7eed9e03e53415d37aa96045", withKey());
    expect(res.status).toBe(200);
    expect(res.headers.get("x-compute-units")).toBe("2");
    expect(await res.json()).toEqual({
      wallet_address: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045",
      positions: [],
      aggregations: { total_usd_value: 0, total_by_chain: {} },
    });
  });

  it("error: a key over its rate limit gets 429 with Retry-After", async () => {
    const limited = await env.createKey("slowpoke", new RateLimit({ requests_per_second: 0.5, burst: 2 }));
    const statuses: Array<number> = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 3; i++) {
      const res = await get("/v1/account", withKey(limited.key));
      statuses.push(res.status);
      if (res.status === 429) {
        retryAfter = res.headers.get("retry-after");
        expect(await res.json()).toMatchObject({ code: "RATE_LIMITED" });
      }
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  });

  it("behavior: the OpenAPI document lists every route", async () => {
    const doc = (await (await get("/openapi.json")).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/v1/evm/balances/{address}",
        "/v1/evm/balances/{address}/token/{token_address}",
        "/beta/evm/defi/positions/{address}",
        "/beta/evm/subscriptions/webhooks",
        "/beta/evm/subscriptions/webhooks/{webhookId}",
        "/beta/evm/subscriptions/webhooks/{webhookId}/addresses",
        "/v1/evm/supported-chains",
        "/healthz",
      ]),
    );
  });
});
