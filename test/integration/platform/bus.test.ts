import { jetstream } from "@nats-io/jetstream";
import { headers, type NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAdmin } from "../../../src/admin/AdminClient.js";
import { adminGetUsage, adminListKeys, adminSetTeamQuota } from "../../../src/contracts/Admin.js";
import { hourKey } from "../../../src/domain/Usage.js";
import { type AnvilService, startAnvilService } from "../../support/anvilService.js";
import type { TestNats } from "../../support/natsServer.js";
import { eventually, type RunningService } from "../../support/serviceHarness.js";

let env: AnvilService;
let nats: TestNats;
let service: RunningService;
let admin: NatsConnection;
let created: Awaited<ReturnType<AnvilService["createKey"]>>;

beforeAll(async () => {
  env = await startAnvilService();
  ({ nats, service, admin } = env);
  created = await env.createKey("bus-team");
});

afterAll(async () => {
  await env?.stop();
});

const permissionDenied = async (nc: NatsConnection, subject: string) => {
  try {
    await nc.request(subject, "{}", { timeout: 2_000 });
    return false;
  } catch (error) {
    return /permission/i.test(String((error as Error).message) + String((error as Error).cause ?? ""));
  }
};

describe("NATS request/reply and role permissions", () => {
  it("behavior: another service calls an endpoint over NATS with the same envelope and auth", async () => {
    const nc = await nats.connectAs("gateway");
    const h = headers();
    h.set("X-Svc-Api-Key", created.key);
    h.set("X-Request-Id", "nats-caller-1");
    const reply = await nc.request("svc.v1.account.get", JSON.stringify({ params: {}, query: {} }), {
      headers: h,
      timeout: 5_000,
    });
    expect(reply.headers?.get("Svc-Status")).toBe("200");
    expect(reply.headers?.get("X-Compute-Units")).toBe("0");
    expect(reply.json()).toMatchObject({ team_name: "bus-team" });

    const unauthenticated = await nc.request(
      "svc.v1.account.get",
      JSON.stringify({ params: {}, query: {} }),
      { timeout: 5_000 },
    );
    expect(unauthenticated.headers?.get("Svc-Status")).toBe("401");
    expect(unauthenticated.headers?.get("Nats-Service-Error-Code")).toBe("401");
    expect(unauthenticated.json()).toMatchObject({ code: "MISSING_API_KEY" });

    const garbage = await nc.request("svc.v1.account.get", "not json", { headers: h, timeout: 5_000 });
    expect(garbage.headers?.get("Svc-Status")).toBe("400");
  });

  it("error: the gateway's and the api's credentials cannot call admin subjects or publish chain events", async () => {
    const gateway = await nats.connectAs("gateway");
    const api = await nats.connectAs("api");
    expect(await permissionDenied(gateway, "admin.keys.list")).toBe(true);
    expect(await permissionDenied(api, "admin.keys.list")).toBe(true);
    expect(await permissionDenied(gateway, "chain.1.block")).toBe(true);
    expect(await permissionDenied(api, "chain.1.block")).toBe(true);
    const { keys } = await Effect.runPromise(callAdmin(admin, adminListKeys, {}));
    expect(keys.map((k) => k.key_id)).toContain(created.record.key_id);
  });

  it("behavior: ingest may publish chain events into CHAIN_EVENTS", async () => {
    const ingest = await nats.connectAs("ingest");
    const ack = await jetstream(ingest).publish("chain.1.block", JSON.stringify({ test: true }), {
      msgID: "1:0xabc",
    });
    expect(ack.stream).toBe("CHAIN_EVENTS");
  });

  it("behavior: usage is aggregated per team, key, endpoint and hour, and a team over its quota gets 402", async () => {
    const url = `${service.baseUrl}/v1/account`;
    const auth = { "x-svc-api-key": created.key };
    for (let i = 0; i < 3; i++) expect((await fetch(url, { headers: auth })).status).toBe(200);
    await eventually(
      async () => {
        const { rows } = await Effect.runPromise(
          callAdmin(admin, adminGetUsage, { team_id: created.team.team_id }),
        );
        return rows.some(
          (r) => r.endpoint === "getAccount" && r.requests >= 3 && r.key_id === created.record.key_id,
        );
      },
      30_000,
      "usage rows",
    );
    // A worker's record of 7 CU (as a CU-charging endpoint would publish) reaches the month total.
    const api = await nats.connectAs("api");
    const record = {
      hour: hourKey(Date.now()),
      team_id: created.team.team_id,
      key_id: created.record.key_id,
      endpoint: "getBalances",
      requests: 1,
      errors: 0,
      cu: 7,
    };
    await jetstream(api).publish(`usage.${created.team.team_id}`, JSON.stringify(record), {
      msgID: "test-usage-1",
    });
    // Published twice with the same id: deduplicated by the stream, counted once.
    await jetstream(api).publish(`usage.${created.team.team_id}`, JSON.stringify(record), {
      msgID: "test-usage-1",
    });
    await eventually(
      async () =>
        ((await (await fetch(url, { headers: auth })).json()) as { cu_used_this_month: number })
          .cu_used_this_month === 7,
      30_000,
      "month total of 7 CU",
    );
    await Effect.runPromise(callAdmin(admin, adminSetTeamQuota, { team: "bus-team", monthly_cu_quota: 7 }));
    await eventually(
      async () => (await fetch(url, { headers: auth })).status === 402,
      30_000,
      "quota applied",
    );
    const over = await fetch(url, { headers: auth });
    expect(await over.json()).toMatchObject({ code: "QUOTA_EXCEEDED" });
    await Effect.runPromise(
      callAdmin(admin, adminSetTeamQuota, { team: "bus-team", monthly_cu_quota: null }),
    );
    await eventually(
      async () => (await fetch(url, { headers: auth })).status === 200,
      30_000,
      "quota lifted",
    );
  });

  it("error: failed requests are counted as errors and cost 0 CU", async () => {
    const before = await Effect.runPromise(
      callAdmin(admin, adminGetUsage, { team_id: created.team.team_id }),
    );
    const cuBefore = before.rows.reduce((sum, r) => sum + r.cu, 0);
    // A chain name where ids are required: a 400 after authentication.
    const res = await fetch(
      `${service.baseUrl}/beta/evm/defi/positions/0x${"1".repeat(40)}?chain_ids=ethereum`,
      {
        headers: { "x-svc-api-key": created.key },
      },
    );
    expect(res.status).toBe(400);
    await eventually(
      async () => {
        const { rows } = await Effect.runPromise(
          callAdmin(admin, adminGetUsage, { team_id: created.team.team_id }),
        );
        const row = rows.find((r) => r.endpoint === "getDefiPositions");
        return (
          row !== undefined &&
          row.errors === 1 &&
          row.cu === 0 &&
          rows.reduce((s, r) => s + r.cu, 0) === cuBefore
        );
      },
      30_000,
      "error row",
    );
  });
});
