import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningService, startService } from "../../support/serviceHarness.js";
import {
  addressOf,
  callerFor,
  createBody,
  startWebhookEnv,
  WEBHOOKS,
  type WebhookEnv,
} from "../../support/webhookEnv.js";

let env: WebhookEnv;
let restarted: RunningService | undefined;

beforeAll(async () => {
  env = await startWebhookEnv();
}, 60_000);

afterAll(async () => {
  await restarted?.stop();
  await env?.stop();
});

describe("webhooks across a restart", () => {
  it("behavior: a webhook keeps its settings, state, addresses and secret history when the service restarts", async () => {
    const key = await env.keyFor("restart-team");
    const call = callerFor(env.service.baseUrl, key);
    const hook = (
      await call("POST", WEBHOOKS, createBody({ chain_ids: [1], addresses: [addressOf(5), addressOf(6)] }))
    ).json as { id: string; secret: string };
    await call("PATCH", `${WEBHOOKS}/${hook.id}`, { active: false, name: "paused one" });
    await call("POST", `${WEBHOOKS}/${hook.id}/secret/rotate`);
    const before = (await call("GET", `${WEBHOOKS}/${hook.id}`)).json;
    const { webhooks } = await env.buckets();
    const storedBefore = (await webhooks.get(`hook.${hook.id}`))?.string();

    await env.service.stop();
    restarted = await startService(env.nats, { chainsConfig: env.chainsConfig, roles: ["gateway", "api"] });
    const again = callerFor(restarted.baseUrl, key);

    const after = await again("GET", `${WEBHOOKS}/${hook.id}`);
    expect(after.status).toBe(200);
    expect(after.json).toEqual(before);
    expect(after.json).toMatchObject({ active: false, name: "paused one", chain_ids: [1] });
    expect((await webhooks.get(`hook.${hook.id}`))?.string()).toBe(storedBefore);
    expect((await again("GET", `${WEBHOOKS}/${hook.id}/addresses`)).json).toEqual({
      addresses: [addressOf(5), addressOf(6)],
    });
    expect((await again("GET", WEBHOOKS)).json.webhooks).toEqual([before]);
    const resumed = await again("PATCH", `${WEBHOOKS}/${hook.id}`, { active: true });
    expect(resumed.json).toMatchObject({ active: true, name: "paused one" });
    expect((await again("DELETE", `${WEBHOOKS}/${hook.id}`)).status).toBe(200);
  });
});
