import { Effect, Either } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAdmin } from "../../../src/admin/AdminClient.js";
import {
  adminGetWebhook,
  adminListWebhooks,
  adminRotateWebhookSecret,
  adminSetWebhookActive,
} from "../../../src/contracts/Admin.js";
import {
  addressOf,
  type Caller,
  createBody,
  startWebhookEnv,
  testSealer,
  WEBHOOKS,
  type WebhookEnv,
} from "../../support/webhookEnv.js";

let env: WebhookEnv;
let call: <O extends Parameters<typeof callAdmin>[1]>(
  operation: O,
  payload: Parameters<typeof callAdmin<O["payload"], O["response"]>>[2],
) => Promise<Either.Either<O["response"]["Type"], { code: string; message: string }>>;

beforeAll(async () => {
  env = await startWebhookEnv();
  const admin = await env.nats.connectAs("admin");
  call = (operation, payload) => Effect.runPromise(Effect.either(callAdmin(admin, operation, payload)));
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

const create = async (caller: Caller, overrides: Record<string, unknown>) => {
  const res = await caller("POST", WEBHOOKS, createBody(overrides));
  expect(res.status, res.text).toBe(200);
  return res.json as { id: string; secret: string };
};

const ok = <A>(answer: Either.Either<A, { message: string }>): A => {
  if (Either.isLeft(answer)) throw new Error(answer.left.message);
  return answer.right;
};

describe("admin webhook operations", () => {
  it("default: admin.webhooks.list spans every team, filters, searches, sorts and pages", async () => {
    const north = await env.as("adm-north");
    const south = await env.as("adm-south");
    await create(north, { name: "north big", addresses: [addressOf(1), addressOf(2), addressOf(3)] });
    const quiet = await create(north, { name: "north quiet" });
    await create(south, { name: "south hook", type: "activities", addresses: [addressOf(4), addressOf(5)] });
    expect((await north("PATCH", `${WEBHOOKS}/${quiet.id}`, { active: false })).status).toBe(200);

    const all = ok(await call(adminListWebhooks, { search: "adm-" }));
    expect(all.webhooks.map((w) => [w.team_name, w.name, w.address_count, w.active])).toEqual([
      ["adm-north", "north big", 3, true],
      ["adm-north", "north quiet", 1, false],
      ["adm-south", "south hook", 2, true],
    ]);
    expect(all.total).toBe(3);
    expect(ok(await call(adminListWebhooks, { search: "QUIET" })).webhooks.map((w) => w.id)).toEqual([
      quiet.id,
    ]);
    expect(ok(await call(adminListWebhooks, { search: "adm-", active: true })).total).toBe(2);
    expect(ok(await call(adminListWebhooks, { search: "adm-", type: "activities" })).webhooks[0]?.name).toBe(
      "south hook",
    );
    const byAddresses = ok(
      await call(adminListWebhooks, {
        search: "adm-",
        sort: "addresses",
        descending: true,
        offset: 1,
        limit: 1,
      }),
    );
    expect(byAddresses).toMatchObject({ offset: 1, total: 3, webhooks: [{ name: "south hook" }] });
  });

  it("default: admin.webhooks.get shows the filters and pages the addresses", async () => {
    const caller = await env.as("adm-get");
    const hook = await create(caller, {
      addresses: Array.from({ length: 5 }, (_, i) => addressOf(50 + i)),
      chain_ids: [1],
      transaction_type: "receiver",
    });
    const page = ok(
      await call(adminGetWebhook, {
        webhook_id: hook.id.toUpperCase(),
        addresses_offset: 2,
        addresses_limit: 2,
      }),
    );
    expect(page.webhook).toMatchObject({
      id: hook.id,
      team_name: "adm-get",
      address_count: 5,
      filters: { chain_ids: [1], transaction_type: "receiver", counterparty: null },
    });
    expect(page.addresses).toEqual([addressOf(52), addressOf(53)]);
    const missing = await call(adminGetWebhook, { webhook_id: "01a1ff1f-0000-7000-8000-000000000000" });
    expect(Either.isLeft(missing) && missing.left.code).toBe("404");
  });

  it("default: admin.webhooks.active.set and secret.rotate change the webhook as its team's API does", async () => {
    const caller = await env.as("adm-act");
    const hook = await create(caller, {});
    const paused = ok(await call(adminSetWebhookActive, { webhook_id: hook.id, active: false }));
    expect(paused).toMatchObject({ changed: true, webhook: { active: false } });
    expect((await caller("GET", `${WEBHOOKS}/${hook.id}`)).json.active).toBe(false);
    expect(ok(await call(adminSetWebhookActive, { webhook_id: hook.id, active: false })).changed).toBe(false);

    const rotated = ok(await call(adminRotateWebhookSecret, { webhook_id: hook.id }));
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);
    const record = await (await env.buckets()).webhooks.get(`hook.${hook.id}`);
    const { secrets } = record?.json<{ secrets: { current: string; previous: { secret: string } } }>() ?? {
      secrets: { current: "", previous: { secret: "" } },
    };
    expect(testSealer.reveal(secrets.current, hook.id)).toBe(rotated.secret);
    expect(testSealer.reveal(secrets.previous.secret, hook.id)).toBe(hook.secret);
  });
});
