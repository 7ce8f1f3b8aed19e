import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addressOf,
  type Caller,
  createBody,
  type Json,
  startWebhookEnv,
  WEBHOOKS,
  type WebhookEnv,
} from "../../support/webhookEnv.js";

/**
 * The `positions` webhook type over HTTP: created, read, patched, listed and deleted like the other
 * types, with its `conditions` checked before anything is stored.
 */

let env: WebhookEnv;
let call: Caller;

beforeAll(async () => {
  env = await startWebhookEnv();
  call = await env.as("positions-team");
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

const positionsBody = (overrides: Record<string, unknown> = {}) =>
  createBody({ type: "positions", conditions: { health_factor_below: 1.2 }, ...overrides });

/** Expects a 400 whose message names `field`. */
const expect400 = async (pending: Promise<{ status: number; json: Json; text: string }>, field: string) => {
  const res = await pending;
  expect(res.status, res.text).toBe(400);
  expect(res.json.error).toEqual(expect.stringContaining(field));
};

describe("positions webhooks over HTTP", () => {
  it("default: create, get, list, patch and delete a positions webhook with its conditions", async () => {
    const created = await call("POST", WEBHOOKS, positionsBody());
    expect(created.status, created.text).toBe(200);
    expect(created.json).toMatchObject({ type: "positions", conditions: { health_factor_below: 1.2 } });
    const id = created.json.id as string;
    expect((await call("GET", `${WEBHOOKS}/${id}`)).json).toMatchObject({
      conditions: { health_factor_below: 1.2 },
    });
    const listed = (await call("GET", WEBHOOKS)).json.webhooks as ReadonlyArray<Json>;
    expect(listed.find((w) => w.id === id)).toMatchObject({ type: "positions" });

    const patched = await call("PATCH", `${WEBHOOKS}/${id}`, { conditions: { health_factor_below: 1.5 } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json.conditions).toEqual({ health_factor_below: 1.5 });
    const both = await call("PATCH", `${WEBHOOKS}/${id}`, {
      conditions: { health_factor_below: 1.5, liquidated: true },
    });
    expect(both.json.conditions).toEqual({ health_factor_below: 1.5, liquidated: true });
    // The same conditions again change nothing, so the resource's time stays.
    const same = await call("PATCH", `${WEBHOOKS}/${id}`, {
      conditions: { liquidated: true, health_factor_below: 1.5 },
    });
    expect(same.json.updated_at).toBe(both.json.updated_at);

    expect((await call("DELETE", `${WEBHOOKS}/${id}`)).status).toBe(200);
    expect((await call("GET", `${WEBHOOKS}/${id}`)).status).toBe(404);
  });

  it("error: hostile or meaningless conditions are a 400 naming the field, and nothing is stored", async () => {
    const before = ((await call("GET", WEBHOOKS)).json.webhooks as ReadonlyArray<Json>).length;
    const post = (overrides: Record<string, unknown>) => call("POST", WEBHOOKS, positionsBody(overrides));
    for (const threshold of [1, 0.5, -3, 0, 101, 1e308, "1.2", null, [1.2], { value: 1.2 }])
      await expect400(post({ conditions: { health_factor_below: threshold } }), "health_factor_below");
    await expect400(post({ conditions: { health_factor_above: 2 } }), "health_factor_above");
    for (const condition of ["liquidated", "out_of_range", "in_range"])
      for (const value of [false, "yes", 1, null])
        await expect400(post({ conditions: { [condition]: value } }), condition);
    await expect400(post({ conditions: {} }), "conditions");
    await expect400(post({ conditions: null }), "conditions");
    await expect400(post({ conditions: undefined }), "conditions");
    await expect400(post({ conditions: Array.from({ length: 100_000 }, () => 1.5) }), "conditions");
    await expect400(post({ conditions: "health_factor_below" }), "conditions");
    await expect400(post({ asset_type: "erc20" }), "asset_type");
    await expect400(post({ token_address: addressOf(9) }), "token_address");
    // NaN and Infinity are not JSON: a body carrying them is refused as a body.
    const raw = await fetch(`${env.service.baseUrl}${WEBHOOKS}`, {
      method: "POST",
      headers: { "x-svc-api-key": await env.keyFor("positions-team"), "content-type": "application/json" },
      body: JSON.stringify(positionsBody()).replace("1.2", "NaN"),
    });
    expect(raw.status).toBe(400);
    // Conditions belong to positions webhooks only.
    await expect400(
      call("POST", WEBHOOKS, createBody({ type: "balances", conditions: { health_factor_below: 1.2 } })),
      "conditions",
    );
    const after = ((await call("GET", WEBHOOKS)).json.webhooks as ReadonlyArray<Json>).length;
    expect(after).toBe(before);

    const created = await call("POST", WEBHOOKS, positionsBody());
    const id = created.json.id as string;
    await expect400(call("PATCH", `${WEBHOOKS}/${id}`, { conditions: null }), "conditions");
    await expect400(
      call("PATCH", `${WEBHOOKS}/${id}`, { conditions: { health_factor_below: 0.9 } }),
      "health_factor_below",
    );
    expect((await call("GET", `${WEBHOOKS}/${id}`)).json.conditions).toEqual({ health_factor_below: 1.2 });
  });

  it("default: value_change_pct and position_types are created, read, listed, patched and cleared", async () => {
    const created = await call(
      "POST",
      WEBHOOKS,
      positionsBody({
        conditions: { value_change_pct: 12.5 },
        position_types: ["LendingV3", "Tokenized", "Tokenized"],
      }),
    );
    expect(created.status, created.text).toBe(200);
    // Stored deduplicated, in the positions endpoint's order of types.
    expect(created.json).toMatchObject({
      conditions: { value_change_pct: 12.5 },
      position_types: ["Tokenized", "LendingV3"],
    });
    expect(created.json).not.toHaveProperty("protocols");
    const id = created.json.id as string;
    expect((await call("GET", `${WEBHOOKS}/${id}`)).json).toMatchObject({
      position_types: ["Tokenized", "LendingV3"],
    });
    const listed = (await call("GET", WEBHOOKS)).json.webhooks as ReadonlyArray<Json>;
    expect(listed.find((w) => w.id === id)).toMatchObject({ position_types: ["Tokenized", "LendingV3"] });

    const patched = await call("PATCH", `${WEBHOOKS}/${id}`, {
      position_types: ["Nft", "NftV4"],
      conditions: { value_change_pct: 5, out_of_range: true },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({
      position_types: ["Nft", "NftV4"],
      conditions: { value_change_pct: 5, out_of_range: true },
    });
    const cleared = await call("PATCH", `${WEBHOOKS}/${id}`, { position_types: null });
    expect(cleared.json).not.toHaveProperty("position_types");
    expect((await call("GET", `${WEBHOOKS}/${id}`)).json).not.toHaveProperty("position_types");
  });

  it("error: hostile value_change_pct, position_types and protocols are a 400 naming the field, and nothing is stored", async () => {
    const before = ((await call("GET", WEBHOOKS)).json.webhooks as ReadonlyArray<Json>).length;
    const post = (overrides: Record<string, unknown>) => call("POST", WEBHOOKS, positionsBody(overrides));
    for (const pct of [0, -10, 1001, 1e308, "10", null, [10], { pct: 10 }, true])
      await expect400(post({ conditions: { value_change_pct: pct } }), "value_change_pct");
    const unknownType = await post({ position_types: ["Aave"] });
    expect(unknownType.status).toBe(400);
    expect(unknownType.json.error).toContain('"position_types[0]"');
    expect(unknownType.json.error).toContain('"Tokenized"');
    await expect400(post({ position_types: [] }), "position_types");
    await expect400(post({ position_types: "Tokenized" }), "position_types");
    await expect400(post({ position_types: Array.from({ length: 10_000 }, () => "Nft") }), "position_types");
    await expect400(post({ protocols: ["<script>alert(1)</script>"] }), "protocols");
    await expect400(post({ protocols: Array.from({ length: 10_000 }, () => "AaveV3") }), "protocols");
    // This deployment's chains register no protocol: no name could ever match.
    const noRegistry = await post({ protocols: ["AaveV3"] });
    expect(noRegistry.status).toBe(400);
    expect(noRegistry.json.error).toContain("register no protocol");
    for (const field of [{ position_types: ["Nft"] }, { protocols: ["AaveV3"] }])
      await expect400(
        call("POST", WEBHOOKS, createBody({ type: "balances", ...field })),
        Object.keys(field)[0]!,
      );
    const after = ((await call("GET", WEBHOOKS)).json.webhooks as ReadonlyArray<Json>).length;
    expect(after).toBe(before);

    const created = await call("POST", WEBHOOKS, positionsBody({ position_types: ["Tokenized"] }));
    const id = created.json.id as string;
    await expect400(call("PATCH", `${WEBHOOKS}/${id}`, { position_types: ["Unknown"] }), "position_types");
    await expect400(
      call("PATCH", `${WEBHOOKS}/${id}`, { conditions: { value_change_pct: -1 } }),
      "value_change_pct",
    );
    expect((await call("GET", `${WEBHOOKS}/${id}`)).json).toMatchObject({
      position_types: ["Tokenized"],
      conditions: { health_factor_below: 1.2 },
    });
  });
});
