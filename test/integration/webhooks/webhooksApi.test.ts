import { headers as natsHeaders } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WATCHED_WALLETS_SUBJECT } from "../../../src/discovery/watchedWallets.js";
import { encodeList } from "../../../src/webhooks/store/addressLists.js";
import { CUT_SHORT_AFTER_MS } from "../../../src/webhooks/store/createWebhook.js";
import { addressesKey, hookKey, teamKey } from "../../../src/webhooks/store/kvKeys.js";
import { decodeRecord } from "../../../src/webhooks/WebhookRecord.js";
import { newWebhookId } from "../../../src/webhooks/webhookId.js";
import { eventually } from "../../support/serviceHarness.js";
import {
  addressOf,
  type Caller,
  createBody,
  type Json,
  startWebhookEnv,
  testSealer,
  WEBHOOKS,
  type WebhookEnv,
} from "../../support/webhookEnv.js";

let env: WebhookEnv;

beforeAll(async () => {
  env = await startWebhookEnv({
    webhookAllowedHosts: ["10.20.0.0/16"],
    webhookMaxPerTeam: 3,
    webhookMaxAddresses: 8,
    webhookMaxAddressesPerCall: 5,
  });
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

const create = async (call: Caller, overrides: Record<string, unknown> = {}) => {
  const res = await call("POST", WEBHOOKS, createBody(overrides));
  expect(res.status, res.text).toBe(200);
  return res.json as Json & { id: string; secret: string; updated_at: string };
};

/** Expects a 400 whose message names `field`. */
const expect400 = async (pending: Promise<{ status: number; json: Json }>, field: string, code?: string) => {
  const res = await pending;
  expect(res.status).toBe(400);
  expect(res.json.error).toEqual(expect.stringContaining(`"${field}"`));
  if (code !== undefined) expect(res.json.code).toBe(code);
};

describe("webhook resource over HTTP", () => {
  it("default: create answers 200 with the active resource, its team and a one-time whsec_ secret, at 0 CU", async () => {
    const call = await env.as("create-team");
    const res = await call(
      "POST",
      WEBHOOKS,
      createBody({ addresses: [addressOf(7).toUpperCase().replace("0X", "0x")] }),
    );
    expect(res.status).toBe(200);
    expect(res.cu).toBe("0");
    const body = res.json as Json & { secret: string; id: string };
    expect(body).toMatchObject({
      name: "wallet watcher",
      type: "transactions",
      url: "https://example.com/hooks",
      active: true,
      chain_ids: null,
    });
    expect(body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(body.created_at).toBe(body.updated_at);
    expect(Object.keys(body)).not.toContain("transaction_type");
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(body.secret.slice(6), "base64")).toHaveLength(32);
    const account = await call("GET", "/v1/account");
    expect(body.team_id).toBe(account.json.team_id);

    const got = await call("GET", `${WEBHOOKS}/${body.id}`);
    expect(got.status).toBe(200);
    expect(got.cu).toBe("0");
    expect(got.json).toEqual({ ...body, secret: undefined });
    expect(Object.keys(got.json)).not.toContain("secret");
    const addresses = await call("GET", `${WEBHOOKS}/${body.id}/addresses`);
    expect(addresses.json).toEqual({ addresses: [addressOf(7)] });
  });

  it("behavior: optional filters appear when set; addresses are deduplicated and lower-cased; chain ids sorted", async () => {
    const call = await env.as("filters-team");
    const upper = `0x${"AB".repeat(20)}`;
    const hook = await create(call, {
      addresses: [upper, upper.toLowerCase(), addressOf(2)],
      chain_ids: [1, 1],
      transaction_type: "sender",
      counterparty: `0x${"CD".repeat(20)}`,
      asset_type: "erc20",
      token_address: addressOf(99),
    });
    expect(hook).toMatchObject({
      chain_ids: [1],
      transaction_type: "sender",
      counterparty: `0x${"cd".repeat(20)}`,
      asset_type: "erc20",
      token_address: addressOf(99),
    });
    const addresses = await call("GET", `${WEBHOOKS}/${hook.id}/addresses`);
    expect(addresses.json).toEqual({ addresses: [addressOf(2), upper.toLowerCase()] });
    const activities = await create(call, {
      type: "activities",
      activity_type: "swap",
      url: "https://10.20.3.4/x",
    });
    expect(activities).toMatchObject({ activity_type: "swap", url: "https://10.20.3.4/x" });
  });

  it("error: every create rule is a 400 naming its field", async () => {
    const call = await env.as("rules-team");
    const post = (overrides: Record<string, unknown>) => call("POST", WEBHOOKS, createBody(overrides));
    const { name: _n, ...nameless } = createBody();
    await expect400(call("POST", WEBHOOKS, nameless), "name");
    await expect400(post({ name: "   " }), "name");
    await expect400(post({ name: "x".repeat(201) }), "name");
    await expect400(post({ name: "a\u0000b" }), "name");
    for (const url of [
      "http://example.com/hook",
      "ftp://example.com/hook",
      "/relative",
      "example.com/hook",
      "https:example.com",
      "https://user:pw@example.com/",
      "https://127.0.0.1/hook",
      "https://localhost:8443/hook",
      "https://10.0.0.1/",
      "https://10.21.0.1/",
      "https://192.168.1.10/",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/",
      "https://[::ffff:127.0.0.1]/",
      "https://[fd00:ec2::254]/",
      "https://0x7f.1/",
      "https://2130706433/",
      ` https://example.com/`,
      `https://example.com/${"a".repeat(2048)}`,
    ]) {
      await expect400(post({ url }), "url");
    }
    const metadata = await post({ url: "https://169.254.169.254/" });
    expect(metadata.json.error).toMatch(/cloud metadata address/);
    await expect400(post({ type: "nfts" }), "type");
    await expect400(post({ addresses: [] }), "addresses");
    await expect400(post({ addresses: ["0x123"] }), "addresses[0]");
    await expect400(post({ addresses: "0xabc" }), "addresses");
    await expect400(post({ chain_ids: [8453] }), "chain_ids");
    await expect400(post({ chain_ids: [999] }), "chain_ids");
    await expect400(post({ chain_ids: [] }), "chain_ids");
    await expect400(post({ chain_ids: ["1"] }), "chain_ids[0]");
    await expect400(post({ chain_ids: [1.5] }), "chain_ids[0]");
    await expect400(post({ type: "balances", transaction_type: "sender" }), "transaction_type");
    await expect400(post({ type: "activities", counterparty: addressOf(3) }), "counterparty");
    await expect400(post({ type: "transactions", activity_type: "swap" }), "activity_type");
    await expect400(post({ transaction_type: "both" }), "transaction_type");
    await expect400(post({ type: "activities", activity_type: "stake" }), "activity_type");
    await expect400(post({ asset_type: "erc777" }), "asset_type");
    await expect400(post({ token_address: "usdc" }), "token_address");
    await expect400(post({ asset_type: "native", token_address: addressOf(5) }), "token_address");
    await expect400(post({ counterparty: "nobody" }), "counterparty");
    await expect400(post({ active: false }), "active");
    await expect400(post({ colour: "red" }), "colour");
    const balances = await post({ type: "balances", transaction_type: null, activity_type: null });
    expect(balances.status).toBe(200);
    expect((await call("GET", WEBHOOKS)).json.webhooks).toHaveLength(1);
  });

  it("error: address caps per call and per webhook are 400 TOO_MANY_ADDRESSES; the team cap is 400 WEBHOOK_LIMIT_REACHED", async () => {
    const call = await env.as("limits-team");
    const six = Array.from({ length: 6 }, (_, i) => addressOf(100 + i));
    await expect400(
      call("POST", WEBHOOKS, createBody({ addresses: six })),
      "addresses",
      "TOO_MANY_ADDRESSES",
    );
    const hook = await create(call, { addresses: six.slice(0, 5) });
    await expect400(
      call("PATCH", `${WEBHOOKS}/${hook.id}/addresses`, { add_addresses: six }),
      "add_addresses",
      "TOO_MANY_ADDRESSES",
    );
    const more = [addressOf(200), addressOf(201), addressOf(202), addressOf(203)];
    await expect400(
      call("PATCH", `${WEBHOOKS}/${hook.id}/addresses`, { add_addresses: more }),
      "add_addresses",
      "TOO_MANY_ADDRESSES",
    );
    await create(call);
    const third = await create(call);
    const fourth = await call("POST", WEBHOOKS, createBody());
    expect(fourth.status).toBe(400);
    expect(fourth.json).toMatchObject({ code: "WEBHOOK_LIMIT_REACHED" });
    expect(fourth.json.error).toMatch(/WEBHOOK_MAX_PER_TEAM/);
    expect((await call("DELETE", `${WEBHOOKS}/${third.id}`)).status).toBe(200);
    await create(call);
  });

  it("error: a delete cut short after the record went finishes when asked again, and a create cut short gives its slot back to a team at its cap", async () => {
    const call = await env.as("cut-short-team");
    const { webhooks } = await env.buckets();
    const first = await create(call);
    const second = await create(call);
    const teamId = decodeRecord((await webhooks.get(hookKey(first.id)))?.string() ?? "").team_id;
    const listed = async () => JSON.parse((await webhooks.get(teamKey(teamId)))?.string() ?? "{}").ids;

    // The first step of a DELETE (the record) happened; the store failed before the rest.
    await webhooks.delete(hookKey(second.id));
    expect((await call("GET", `${WEBHOOKS}/${second.id}`)).status).toBe(404);
    expect(await listed()).toContain(second.id);
    // What the API workers are told to stop discovering for it: the addresses its list still held.
    const listener = await env.nats.connectAs("api");
    const told = listener.subscribe(WATCHED_WALLETS_SUBJECT, { timeout: 10_000 });
    await listener.flush();
    expect((await call("DELETE", `${WEBHOOKS}/${second.id}`)).status).toBe(200);
    for await (const message of told) {
      const withdrawal = message.json<{ webhook_id?: string; unwatched?: ReadonlyArray<string> }>();
      if (withdrawal.webhook_id !== second.id || withdrawal.unwatched === undefined) continue;
      expect(withdrawal.unwatched).toEqual([addressOf(1)]);
      told.unsubscribe();
    }
    expect(await listed()).toEqual([first.id]);
    expect(await webhooks.get(addressesKey(second.id))).toMatchObject({ operation: "DEL" });
    expect((await call("DELETE", `${WEBHOOKS}/${second.id}`)).status).toBe(404);

    // A create killed two minutes ago after its slot and address list, before its record: the
    // team (cap 3) holds two webhooks and that slot. A create 30 s old is still under way.
    const killed = newWebhookId(Date.now() - 2 * CUT_SHORT_AFTER_MS);
    const underWay = newWebhookId(Date.now() - CUT_SHORT_AFTER_MS / 2);
    for (const id of [killed, underWay])
      await webhooks.create(addressesKey(id), encodeList([addressOf(0xc07)]));
    await webhooks.put(teamKey(teamId), JSON.stringify({ ids: [first.id, killed, underWay].sort() }));
    const third = await call("POST", WEBHOOKS, createBody());
    expect(third.status, third.text).toBe(200);
    expect(await listed()).toEqual([first.id, underWay, third.json.id as string].sort());
    expect(await webhooks.get(addressesKey(killed))).toMatchObject({ operation: "DEL" });
    expect((await webhooks.get(addressesKey(underWay)))?.operation).toBe("PUT");
    const fourth = await call("POST", WEBHOOKS, createBody());
    expect(fourth.json).toMatchObject({ code: "WEBHOOK_LIMIT_REACHED" });
  });

  it("behavior: PATCH changes only given fields; null clears a filter; updated_at moves on effective changes only", async () => {
    const call = await env.as("patch-team");
    const hook = await create(call, { transaction_type: "receiver", asset_type: "erc20", chain_ids: [1] });
    const path = `${WEBHOOKS}/${hook.id}`;
    const same = await call("PATCH", path, { name: hook.name, transaction_type: "receiver" });
    expect(same.status).toBe(200);
    expect(same.json).toEqual((await call("GET", path)).json);
    expect(same.json.updated_at).toBe(hook.updated_at);
    expect((await call("PATCH", path, {})).json.updated_at).toBe(hook.updated_at);
    expect((await call("PATCH", path, { name: null, url: null, active: null })).json.updated_at).toBe(
      hook.updated_at,
    );

    const renamed = await call("PATCH", path, { name: "renamed", transaction_type: null, chain_ids: null });
    expect(renamed.status).toBe(200);
    expect(renamed.cu).toBe("0");
    expect(renamed.json).toMatchObject({
      name: "renamed",
      asset_type: "erc20",
      chain_ids: null,
      url: hook.url,
    });
    expect(Object.keys(renamed.json)).not.toContain("transaction_type");
    expect(Object.keys(renamed.json)).not.toContain("secret");
    expect(Date.parse(renamed.json.updated_at as string)).toBeGreaterThan(Date.parse(hook.updated_at));
    expect(renamed.json.created_at).toBe(hook.created_at);
    expect((await call("GET", path)).json).toEqual(renamed.json);

    const paused = await call("PATCH", path, { active: false });
    expect(paused.json.active).toBe(false);
    expect(paused.json.updated_at).not.toBe(renamed.json.updated_at);
    const again = await call("PATCH", path, { active: false });
    expect(again.json.updated_at).toBe(paused.json.updated_at);
    const resumed = await call("PATCH", path, { active: true });
    expect(resumed.json.active).toBe(true);
    expect(resumed.json.updated_at).not.toBe(paused.json.updated_at);
  });

  it("error: PATCH rules: type and addresses point to the addresses route; filters checked against the stored type", async () => {
    const call = await env.as("patch-rules-team");
    const hook = await create(call, { type: "balances" });
    const path = `${WEBHOOKS}/${hook.id}`;
    const type = await call("PATCH", path, { type: "activities" });
    await expect400(Promise.resolve(type), "type");
    expect(type.json.error).toMatch(/\/addresses/);
    const addresses = await call("PATCH", path, { addresses: [addressOf(1)] });
    await expect400(Promise.resolve(addresses), "addresses");
    expect(addresses.json.error).toMatch(/PUT or PATCH .*\/addresses/);
    await expect400(call("PATCH", path, { activity_type: "swap" }), "activity_type");
    await expect400(call("PATCH", path, { transaction_type: "sender" }), "transaction_type");
    await expect400(call("PATCH", path, { counterparty: addressOf(1) }), "counterparty");
    await expect400(call("PATCH", path, { url: "http://example.com" }), "url");
    await expect400(call("PATCH", path, { url: "https://[::1]:9000/" }), "url");
    await expect400(call("PATCH", path, { name: "" }), "name");
    await expect400(call("PATCH", path, { chain_ids: [8453] }), "chain_ids");
    await expect400(call("PATCH", path, { active: "no" }), "active");
    await expect400(call("PATCH", path, { secret: "whsec_x" }), "secret");
    await expect400(
      call("PATCH", path, { token_address: addressOf(1), asset_type: "native" }),
      "token_address",
    );
    expect((await call("PATCH", path, { asset_type: "native" })).status).toBe(200);
    await expect400(call("PATCH", path, { token_address: addressOf(1) }), "token_address");
    expect((await call("PATCH", path, { activity_type: null, transaction_type: null })).status).toBe(200);
    expect((await call("GET", path)).json.updated_at).not.toBe(hook.updated_at);
  });

  it("error: a malformed id is 400 and an unknown, deleted or other team's id is 404 on every route", async () => {
    const mine = await env.as("owner-team");
    const theirs = await env.as("intruder-team");
    const hook = await create(mine);
    const doomed = await create(mine);
    expect((await mine("DELETE", `${WEBHOOKS}/${doomed.id}`)).status).toBe(200);
    const routes: ReadonlyArray<readonly [string, string, unknown?]> = [
      ["GET", ""],
      ["PATCH", "", { name: "x" }],
      ["DELETE", ""],
      ["GET", "/addresses"],
      ["PUT", "/addresses", { addresses: [addressOf(1)] }],
      ["PATCH", "/addresses", { add_addresses: [addressOf(1)] }],
      ["POST", "/secret/rotate"],
    ];
    for (const [method, suffix, body] of routes) {
      const malformed = await theirs(method, `${WEBHOOKS}/not-a-uuid${suffix}`, body);
      expect(malformed.status, `${method} ${suffix}`).toBe(400);
      expect(malformed.json).toMatchObject({ code: "INVALID_PATH_PARAMETER" });
      expect(malformed.json.error).toMatch(/"webhookId"/);
      for (const id of [hook.id, doomed.id, "0190a0b0-0000-7000-8000-000000000000"]) {
        const caller = id === hook.id ? theirs : mine;
        const missing = await caller(method, `${WEBHOOKS}/${id}${suffix}`, body);
        expect(missing.status, `${method} ${suffix} ${id}`).toBe(404);
        expect(missing.json).toEqual({
          error: `No webhook with id ${id} exists for this team.`,
          code: "WEBHOOK_NOT_FOUND",
        });
      }
    }
    expect((await theirs("GET", WEBHOOKS)).json).toEqual({ webhooks: [] });
    const still = await mine("GET", `${WEBHOOKS}/${hook.id.toUpperCase()}`);
    expect(still.status).toBe(200);
    expect(still.json).toMatchObject({ name: hook.name, updated_at: hook.updated_at });
  });

  it("behavior: list pages the team's webhooks, active and inactive, in creation order", async () => {
    const call = await env.as("list-team");
    const ids = [(await create(call)).id, (await create(call)).id, (await create(call)).id];
    await call("PATCH", `${WEBHOOKS}/${ids[1]}`, { active: false });
    const first = await call("GET", `${WEBHOOKS}?limit=2`);
    expect(first.status).toBe(200);
    expect(first.cu).toBe("0");
    const webhooks = first.json.webhooks as ReadonlyArray<Json>;
    expect(webhooks.map((w) => w.id)).toEqual(ids.slice(0, 2));
    expect(webhooks[1]?.active).toBe(false);
    expect(webhooks.every((w) => !("secret" in w))).toBe(true);
    const second = await call("GET", `${WEBHOOKS}?limit=2&offset=${first.json.next_offset as string}`);
    expect((second.json.webhooks as ReadonlyArray<Json>).map((w) => w.id)).toEqual([ids[2]]);
    expect(second.json).not.toHaveProperty("next_offset");
    expect((await call("GET", WEBHOOKS)).json.webhooks).toHaveLength(3);
    expect((await call("GET", `${WEBHOOKS}?limit=1000`)).json.webhooks).toHaveLength(3);
    await expect400(call("GET", `${WEBHOOKS}?limit=0`), "limit");
    await expect400(call("GET", `${WEBHOOKS}?limit=ten`), "limit");
    await expect400(call("GET", `${WEBHOOKS}?offset=bogus!`), "offset");
    await expect400(call("GET", `${WEBHOOKS}?offset=${Buffer.from("x").toString("base64url")}`), "offset");
  });

  it("behavior: delete is permanent, answers an empty 200, and drops the webhook from lists and from what notifiers match", async () => {
    const call = await env.as("delete-team");
    const hook = await create(call, { addresses: [addressOf(4242)] });
    const book = await env.addressBook();
    await eventually(async () => book.webhooksFor(addressOf(4242)).length > 0, 10_000, "the new address");
    expect(book.webhooksFor(addressOf(4242))).toEqual([hook.id]);
    const res = await call("DELETE", `${WEBHOOKS}/${hook.id}`);
    expect(res.status).toBe(200);
    expect(res.text).toBe("");
    expect(res.cu).toBe("0");
    expect((await call("GET", `${WEBHOOKS}/${hook.id}`)).status).toBe(404);
    expect((await call("DELETE", `${WEBHOOKS}/${hook.id}`)).status).toBe(404);
    expect((await call("GET", WEBHOOKS)).json).toEqual({ webhooks: [] });
    await eventually(async () => book.webhooksFor(addressOf(4242)).length === 0, 10_000, "the deletion");
  });

  it("behavior: addresses are paged, replaced with PUT and edited with PATCH (removals first), notifiers kept in step", async () => {
    const call = await env.as("address-team");
    const hook = await create(call, { addresses: [addressOf(303), addressOf(301), addressOf(302)] });
    const path = `${WEBHOOKS}/${hook.id}/addresses`;
    const first = await call("GET", `${path}?limit=2`);
    expect(first.json.addresses).toEqual([addressOf(301), addressOf(302)]);
    const rest = await call("GET", `${path}?limit=2&offset=${first.json.next_offset as string}`);
    expect(rest.json).toEqual({ addresses: [addressOf(303)] });
    await expect400(call("GET", `${path}?offset=zzz`), "offset");

    const put = await call("PUT", path, { addresses: [addressOf(9), `0x${"EF".repeat(20)}`, addressOf(9)] });
    expect(put.status).toBe(200);
    expect(put.text).toBe("");
    expect(put.cu).toBe("0");
    expect((await call("GET", path)).json).toEqual({ addresses: [addressOf(9), `0x${"ef".repeat(20)}`] });
    await expect400(call("PUT", path, { addresses: [] }), "addresses");
    await expect400(call("PUT", path, {}), "addresses");

    const patch = await call("PATCH", path, {
      remove_addresses: [addressOf(9), addressOf(10)],
      add_addresses: [addressOf(9), addressOf(11)],
    });
    expect(patch.status).toBe(200);
    expect(patch.text).toBe("");
    expect((await call("GET", path)).json.addresses).toEqual([
      addressOf(9),
      addressOf(11),
      `0x${"ef".repeat(20)}`,
    ]);
    await call("PATCH", path, { remove_addresses: [`0x${"EF".repeat(20)}`] });
    expect((await call("GET", path)).json.addresses).toEqual([addressOf(9), addressOf(11)]);
    await expect400(
      call("PATCH", path, { remove_addresses: [addressOf(9), addressOf(11)] }),
      "remove_addresses",
    );
    await expect400(call("PATCH", path, { add_addresses: ["0xnope"] }), "add_addresses[0]");
    expect((await call("PATCH", path, {})).status).toBe(200);
    expect((await call("GET", `${WEBHOOKS}/${hook.id}`)).json.updated_at).toBe(hook.updated_at);

    const book = await env.addressBook();
    const watchers = (address: string) => book.webhooksFor(address);
    expect(watchers(addressOf(9))).toEqual([hook.id]);
    expect(watchers(addressOf(11))).toEqual([hook.id]);
    expect(watchers(addressOf(301))).toEqual([]);
    expect(watchers(`0x${"ef".repeat(20)}`)).toEqual([]);
    // A change the book sees after it loaded: removals first, as the list was changed.
    expect(
      (await call("PATCH", path, { remove_addresses: [addressOf(9)], add_addresses: [addressOf(12)] }))
        .status,
    ).toBe(200);
    await eventually(async () => watchers(addressOf(12)).length > 0, 10_000, "the added address");
    expect(watchers(addressOf(9))).toEqual([]);
    expect(watchers(addressOf(11))).toEqual([hook.id]);
  });

  it("behavior: rotating issues a new secret once and keeps the previous one valid for 24 hours", async () => {
    const call = await env.as("rotate-team");
    const hook = await create(call);
    const before = Date.now();
    const rotated = await call("POST", `${WEBHOOKS}/${hook.id}/secret/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.cu).toBe("0");
    const secret = rotated.json.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(hook.secret);
    expect(rotated.json.updated_at).not.toBe(hook.updated_at);
    const got = await call("GET", `${WEBHOOKS}/${hook.id}`);
    expect(got.json).not.toHaveProperty("secret");
    expect(got.json).toEqual({ ...rotated.json, secret: undefined });
    const { webhooks } = await env.buckets();
    const entry = await webhooks.get(`hook.${hook.id}`);
    const stored = decodeRecord(entry?.string() ?? "");
    expect(testSealer.reveal(stored.secrets.current, hook.id)).toBe(secret);
    expect(testSealer.reveal(stored.secrets.previous?.secret ?? "", hook.id)).toBe(hook.secret);
    const expires = Date.parse(stored.secrets.previous?.expires_at ?? "");
    expect(expires - before).toBeGreaterThanOrEqual(24 * 3600_000 - 1000);
    expect(expires - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
  });

  it("behavior: the same operations answer over NATS request/reply", async () => {
    const key = await env.keyFor("nats-team");
    const nc = await env.nats.connectAs("admin");
    const request = async (subject: string, envelope: unknown) => {
      const h = natsHeaders();
      h.set("X-Svc-Api-Key", key);
      const reply = await nc.request(subject, JSON.stringify(envelope), { timeout: 5_000, headers: h });
      return {
        status: reply.headers?.get("Svc-Status"),
        body: reply.data.length > 0 ? reply.json<Json>() : undefined,
      };
    };
    const created = await request("svc.beta.evm.webhooks.create", {
      params: {},
      query: {},
      body: createBody(),
    });
    expect(created.status).toBe("200");
    const id = created.body?.id as string;
    const got = await request("svc.beta.evm.webhooks.get", { params: { webhookId: id }, query: {} });
    expect(got).toMatchObject({ status: "200", body: { id, active: true } });
    const patched = await request("svc.beta.evm.webhooks.update", {
      params: { webhookId: id },
      query: {},
      body: { active: false },
    });
    expect(patched.body).toMatchObject({ active: false });
    const bad = await request("svc.beta.evm.webhooks.get", { params: { webhookId: "x" }, query: {} });
    expect(bad.status).toBe("400");
    const deleted = await request("svc.beta.evm.webhooks.delete", { params: { webhookId: id }, query: {} });
    expect(deleted).toEqual({ status: "200", body: undefined });
  });
});
